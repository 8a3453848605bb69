/* cuda_driver.h: CUDA's accel_driver (the NVIDIA driver behind backends/accel's shared layer). */
#ifndef MT_CUDA_DRIVER_H
#define MT_CUDA_DRIVER_H

#include "accel.h"
#include "cuda_runtime.h"

extern const accel_driver cuda_driver;

#endif
