#include "output.h"

#include <math.h>

#include "banned.h"

const char *output_plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

json_t *output_json_number_or_null(bool defined, double x)
{
	return defined && isfinite(x) ? json_real(x) : json_null();
}

void output_json_print(FILE *f, json_t *root, size_t flags)
{
	json_dumpf(root, f, flags);
	fputc('\n', f);
	json_decref(root);
}
