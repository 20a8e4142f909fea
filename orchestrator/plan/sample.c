/*
 * The draws of random search (sample.h says the algorithm, which is part
 * of the file format: changing it changes every sampled sweep's settings).
 */
#include "sample.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cfg.h"
#include "error.h"
#include "strbuf.h"

#include "banned.h"

uint64_t sample_splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

void sample_rng_set(struct sample_rng *r, const uint64_t state[4])
{
	memcpy(r->s, state, sizeof(r->s));
}

void sample_rng_trial(struct sample_rng *r, uint64_t sample_seed, uint64_t trial)
{
	/* Output k of SplitMix64 is its step k + 1 from the seed: no loop needed. */
	uint64_t state = sample_seed + trial * UINT64_C(0x9e3779b97f4a7c15);
	uint64_t x = sample_splitmix64(&state);

	for (int i = 0; i < 4; i++)
		r->s[i] = sample_splitmix64(&x);
}

static uint64_t rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t sample_rng_next(struct sample_rng *r)
{
	uint64_t *s = r->s;
	uint64_t result = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return result;
}

double sample_rng_uniform(struct sample_rng *r)
{
	return (double)(sample_rng_next(r) >> 11) * 0x1.0p-53;
}

char *sample_format(double x, unsigned digits)
{
	char buf[64];

	if (x == 0)
		x = 0; /* no "-0" */
	snprintf(buf, sizeof(buf), "%.*g", (int)digits, x);
	return xstrdup(buf);
}

/* floor(v) as an integer text, v kept within [lo, hi]. */
static char *format_int(double v, double lo, double hi)
{
	double f = floor(v);

	if (f < lo)
		f = lo;
	if (f > hi)
		f = hi;
	return xstrfmt("%lld", (long long)f);
}

char *sample_draw(struct sample_rng *r, const struct cfg_sample *s, unsigned digits)
{
	double u = sample_rng_uniform(r);
	double a = s->lo, b = s->hi;

	switch (s->kind) {
	case CFG_SAMPLE_UNIFORM:
		return sample_format(a + u * (b - a), digits);
	case CFG_SAMPLE_LOGUNIFORM:
		return sample_format(exp(log(a) + u * (log(b) - log(a))), digits);
	case CFG_SAMPLE_INT:
		if (s->log)
			return format_int(exp(log(a) + u * (log(b + 1) - log(a))), a, b);
		return format_int(a + u * (b - a + 1), a, b);
	case CFG_SAMPLE_CHOICE:
		break;
	}
	return xstrdup(s->choices[(size_t)(u * (double)s->nchoices)]);
}

void sample_trial(char **out, const struct cfg *cfg, size_t trial)
{
	struct sample_rng r;

	sample_rng_trial(&r, cfg->sample_seed, trial);
	for (size_t i = 0; i < cfg->nsample; i++)
		out[i] = sample_draw(&r, &cfg->sample[i], cfg->sample_digits);
}
