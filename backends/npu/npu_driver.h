/* npu_driver.h: the NPU's accel_driver (ACL behind backends/accel's shared layer). */
#ifndef MT_NPU_DRIVER_H
#define MT_NPU_DRIVER_H

#include "accel.h"
#include "npu_runtime.h"

extern const accel_driver npu_driver;

#endif
