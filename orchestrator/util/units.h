#ifndef SWEEP_UNITS_H
#define SWEEP_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Time and memory strings in the forms sbatch accepts, and back.
 * Pure functions: no I/O, no error() calls; failures return -1 and, where
 * why is not NULL, set *why to a static lower-case explanation.
 */

/*
 * sbatch --time: "M", "M:S", "H:M:S", "D-H", "D-H:M", "D-H:M:S", and
 * "UNLIMITED"/"INFINITE" (case-insensitive). Sets *seconds, or *unlimited.
 * Zero is refused (sbatch would read it as "no limit" on some versions).
 */
int units_parse_time(uint64_t *seconds, bool *unlimited, const char *s, const char **why);

/*
 * sbatch --mem: an integer with an optional suffix K, M, G or T (case-
 * insensitive, optional trailing "B" as in "32GB" is refused because sbatch
 * refuses it); no suffix means M. Sets *mb to the size in MiB, rounding
 * K up. Zero is refused ("--mem=0" means "all the node's memory" in sbatch).
 */
int units_parse_mem(uint64_t *mb, const char *s, const char **why);

/* Formats seconds as sbatch would accept and humans read: "D-HH:MM:SS" or "HH:MM:SS". */
void units_format_time(char *buf, size_t size, uint64_t seconds);
/* Formats MiB as the shortest exact sbatch form: "32G", "1536M", "2T". */
void units_format_mem(char *buf, size_t size, uint64_t mb);
/* Formats a byte count for people: "1.5G", "312M", "20K", "512" (binary units). */
void units_format_bytes(char *buf, size_t size, uint64_t bytes);

#endif
