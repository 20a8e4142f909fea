#ifndef SWEEP_SAMPLE_H
#define SWEEP_SAMPLE_H

#include <stddef.h>
#include <stdint.h>

struct cfg;
struct cfg_sample;

/*
 * Random search: the draws of `sample:`. Pure, no I/O, the same on every
 * machine and release (no libc rand(), no platform double formatting
 * beyond C's "%.*g").
 *
 * The generator is xoshiro256** (Blackman and Vigna, 2018), seeded with
 * SplitMix64 as its authors advise. Trial k has a stream of its own, so it
 * draws the same values whatever `trials` is:
 *
 *     x     = SplitMix64 output number k (0-based) from state sample_seed
 *     state = the next four SplitMix64 outputs from state x
 *
 * and then draws each sampled parameter once, in file order, from one
 * uniform u = (next() >> 11) * 2^-53 in [0, 1):
 *
 *     uniform [a, b]        a + u (b - a)
 *     loguniform [a, b]     exp(log a + u (log b - log a))
 *     int [a, b]            a + floor(u (b - a + 1))
 *     int [a, b], log       floor(exp(log a + u (log(b + 1) - log a))), at most b
 *     choice [c0 .. cn-1]   c[floor(u n)]
 *
 * Reals are printed with sample_digits significant digits ("%.*g"); the
 * printed text is the value: the command receives it, the store keeps it
 * and the report shows it.
 */

struct sample_rng {
	uint64_t s[4];
};

/* One SplitMix64 step: advances *state and returns its output. */
uint64_t sample_splitmix64(uint64_t *state);
/* Sets r to the given state words (for reference vectors). */
void sample_rng_set(struct sample_rng *r, const uint64_t state[4]);
/* The stream of trial k of a sweep with this sample_seed (see above). */
void sample_rng_trial(struct sample_rng *r, uint64_t sample_seed, uint64_t trial);
/* The next xoshiro256** output. */
uint64_t sample_rng_next(struct sample_rng *r);
/* A uniform real in [0, 1), 53 random bits. */
double sample_rng_uniform(struct sample_rng *r);

/* x printed with digits significant digits, as the command receives it; the caller frees. */
char *sample_format(double x, unsigned digits);

/* One draw of s from r, as text; the caller frees. */
char *sample_draw(struct sample_rng *r, const struct cfg_sample *s, unsigned digits);

/*
 * The values of trial k of cfg's `sample:` into out[0..cfg->nsample), each
 * allocated (the caller frees them).
 */
void sample_trial(char **out, const struct cfg *cfg, size_t trial);

#endif
