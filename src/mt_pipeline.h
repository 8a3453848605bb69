/* mt_pipeline.h: pipeline mode (torch.pipeline()): ops are recorded, with their results' sizes,
 * strides and dtypes from their meta functions, and run later, in order, when some data is
 * needed (a read of a pending storage), on flush, or when the mode ends.
 *
 * While recording, results exist (allocated, not computed) and their storages are marked
 * pending; views are taken at once (they only compute metadata). An op without a meta
 * function cannot be recorded: "pipeline requires meta kernel for op NAME". A kernel that fails
 * while the pipeline runs reports its error at that point, and the tensors of the ops after it
 * refuse to be read. The mode is per thread and nests (the outermost exit runs the work). */
#ifndef MT_PIPELINE_H
#define MT_PIPELINE_H

#include "mt_common.h"

/* Enter pipeline mode on this thread (or one level deeper). */
MT_API int mt_pipeline_enter(void);
/* Leave one level; leaving the last runs everything recorded and returns its status. */
MT_API int mt_pipeline_exit(void);
/* Run everything recorded so far on this thread (no-op outside pipeline mode). */
MT_API int mt_pipeline_flush(void);
MT_API bool mt_pipeline_active(void);
/* Ops recorded and not yet run on this thread (tests and diagnostics). */
MT_API int64_t mt_pipeline_pending_ops(void);

void mt_pipeline_register(void);

#endif
