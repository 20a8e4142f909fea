/*
 * What submit and resubmit share around handing array jobs to a backend.
 */
#include "submission.h"

#include "backend.h"
#include "error.h"

#include "banned.h"

int submission_max_array_size(const struct backend_ops *ops, uint32_t *out, bool dry_run,
                              const char *unknown_says)
{
	int ret;

	if (!dry_run)
		return ops->max_array_size(out);
	error_set_handler(error_as_warning);
	ret = ops->max_array_size(out);
	error_set_handler(NULL);
	if (ret < 0) {
		warning("%s", unknown_says);
		*out = 0;
	}
	return 0;
}
