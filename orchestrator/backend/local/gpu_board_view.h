#ifndef SWEEP_GPU_BOARD_VIEW_H
#define SWEEP_GPU_BOARD_VIEW_H

/*
 * sweep gpus's views of the board (board.h): the lab's GPU rules and what
 * they allow the calling user now, and what each local runner announces.
 * All print to stdout; the caller owns what it passes in.
 */

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "board.h"

struct gpu_set;

/*
 * sweep gpus --rules: reads the rule file (rules_path()) and prints it
 * with, for a short task and one with no time limit asking one GPU, whether
 * it may start now on set's GPUs (the runners' GPUs taken out) and why not;
 * as JSON with json. SWEEP_ERR (reported) when the rule file does not read.
 */
int gpu_board_view_rules(const struct gpu_set *set, const struct board_entry *runners,
                         size_t nrunners, bool json);
/* The runners' announcements, a line each under a heading; nothing when n is 0. */
void gpu_board_view_runners(const struct board_entry *e, size_t n);
/* One runner's announcement as a JSON object; the caller owns the reference. */
json_t *gpu_board_view_runner_json(const struct board_entry *e);

#endif
