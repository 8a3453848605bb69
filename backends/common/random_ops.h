/* random_ops.h: what the random samplers of every device share (generator choice, ranges). */
#ifndef MT_RANDOM_OPS_H
#define MT_RANDOM_OPS_H

#include "mt_dispatch.h"
#include "mt_generator.h"

/* The generator argument, or the device's default one; checks it is for that device. */
MT_API mt_generator *mt_random_generator(mt_value gen, mt_device dev);
/* The integers random_ may draw for a dtype: its range, the exact integers of a float type. */
MT_API void mt_random_dtype_range(mt_dtype dt, int64_t *lo, int64_t *hi);
/* C++'s name of a dtype's element type ("float", "c10::Half"), as PyTorch's messages say it. */
const char *mt_random_ctype_name(mt_dtype dt);
/* What random_ draws: (v % range) + from, or every 64-bit value (full). */
typedef struct mt_random_range {
    int64_t from;
    uint64_t range;
    bool full;
} mt_random_range;
/* random_'s checks and bounds (random_, random_.to, random_.from: their boxed arguments). */
MT_API int mt_random_plan(int opid, mt_value *args, mt_dtype dt, mt_random_range *out);
void mt_random_register(void);

#endif
