/* accel_stream.h: the streams every accelerator keeps, as torch.cuda's: per device a default
 * stream (made on first use, with the driver's highest priority), and per thread a current
 * stream per device (the default one until set_current_stream). The state is the module's own:
 * each accelerator module links its own copy of backends/accel, for its one driver. */
#ifndef MT_ACCEL_STREAM_H
#define MT_ACCEL_STREAM_H

#include "accel.h"

/* The stream; NULL with the error set ("Invalid device id", or the runtime's failure). */
void *accel_default_stream(const accel_driver *d, int device);
void *accel_current_stream(const accel_driver *d, int device);
/* s NULL: back to the default stream. */
void accel_set_current_stream(int device, void *s);
/* Wait for every default stream made so far (at exit: work queued before it is finished). */
void accel_sync_default_streams(const accel_driver *d);

#endif
