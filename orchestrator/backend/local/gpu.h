#ifndef SWEEP_GPU_H
#define SWEEP_GPU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct strbuf;

/*
 * Which GPUs of this machine are free, from what nvidia-smi prints for
 *   nvidia-smi --query-gpu=index,uuid,name,memory.used,memory.total
 *              --format=csv,noheader,nounits
 *   nvidia-smi --query-compute-apps=gpu_uuid,pid,used_memory
 *              --format=csv,noheader,nounits
 * The process list names GPUs by uuid, never by index, so the two are
 * joined by uuid. gpu_parse is pure (text in, structs out); gpu_query
 * runs nvidia-smi and finds who owns each process; gpu_lock keeps two
 * runners off one GPU.
 *
 * Every string in these structs is owned by the gpu_set and freed by
 * gpu_set_release.
 */

#define GPU_NO_VALUE UINT64_MAX /* nvidia-smi printed "[N/A]" or "[Not Supported]" */

/* Arguments of the two queries, NULL-terminated, for an argv array. */
extern const char *const gpu_query_gpus_argv[];
extern const char *const gpu_query_apps_argv[];

struct gpu_proc {
	char *uuid; /* the GPU it runs on */
	long pid;   /* as nvidia-smi sees it (another PID namespace's, in a container) */
	uint64_t used_mib;
	size_t gpu;    /* its position in gpu_set.gpus, SIZE_MAX when no listed GPU has its uuid */
	char *user;    /* owner, filled by the caller; NULL when unknown */
	char *command; /* its name, filled by the caller; NULL when unknown */
};

enum gpu_verdict {
	GPU_FREE = 0,
	GPU_BUSY,           /* at least one compute process runs on it */
	GPU_LOW_MEMORY,     /* no compute process, but less free memory than asked */
	GPU_UNKNOWN_MEMORY, /* nvidia-smi does not report its memory use */
	GPU_HELD,           /* set by sweep gpus, not gpu_select: free by nvidia-smi, but a
	                       runner announces it holds it (board.h), its task starting */
};

struct gpu {
	unsigned index; /* nvidia-smi's (PCI bus) order: CUDA_DEVICE_ORDER=PCI_BUS_ID */
	char *uuid;
	char *name;
	uint64_t used_mib, total_mib; /* GPU_NO_VALUE when not reported */
	size_t nprocs;                /* compute processes on it */
	enum gpu_verdict verdict;     /* set by gpu_select */
};

struct gpu_set {
	struct gpu *gpus; /* by index, ascending */
	size_t ngpus;
	struct gpu_proc *procs;
	size_t nprocs;
};

void gpu_set_init(struct gpu_set *set);
void gpu_set_release(struct gpu_set *set);

/*
 * Reads the outputs of the two queries into out (initialised). Empty GPU
 * output gives an empty set (no GPU), not an error. Fails, with error()
 * naming the line, on a line that is not the five (or three) fields asked
 * for, a repeated index or uuid; out is then released.
 */
int gpu_parse(struct gpu_set *out, const char *gpus_csv, const char *apps_csv);

/*
 * Sets each GPU's verdict: free when no compute process runs on it and it
 * has at least min_free_mib MiB free; min_free_mib 0 means the default,
 * GPU_DEFAULT_FREE_PERCENT of its memory. Returns how many are free.
 */
#define GPU_DEFAULT_FREE_PERCENT 90
size_t gpu_select(struct gpu_set *set, uint64_t min_free_mib);

/* The free memory, in MiB, that gpu_select asks of g for min_free_mib. */
uint64_t gpu_min_free_mib(const struct gpu *g, uint64_t min_free_mib);

/* Appends the indices of the free GPUs, comma-separated ("0,2,3"), to out. */
void gpu_free_list(struct strbuf *out, const struct gpu_set *set);

/*
 * This machine's GPUs: runs the two nvidia-smi queries and parses
 * them into out (initialised); with owners, fills each process's user
 * (from the owner of /proc/<pid>) and command name. An empty set when
 * nvidia-smi finds no GPU. Fails with a clear message when nvidia-smi is
 * missing or fails.
 */
int gpu_query(struct gpu_set *out, bool owners);

/*
 * A GPU given to a task is also locked, so that two runners (of any
 * users) never hand out the same GPU in the moment before its task shows
 * up in nvidia-smi: flock on <folder>/sweep-gpu-<uuid>.lock, the folder
 * gpu_lock_dir(). The lock is made 0644 with O_EXCL, opened read-only and
 * never through a link, and used only when it is a regular file with one
 * name that every user can read, in a folder that root or the caller owns
 * and that is sticky when others may write to it; its mode is changed
 * only when sweep just made it.
 *
 * Returns the lock's descriptor (the caller closes it to unlock), or
 *   GPU_LOCK_HELD    another runner holds it: use another GPU, or wait;
 *   GPU_LOCK_NONE    no lock can be taken (the folder is missing or cannot
 *                    be written): the GPU is used unlocked;
 *   GPU_LOCK_UNSAFE  something at the lock's path is not a lock sweep made
 *                    (a link, a file with other names, one not every user
 *                    can read), or the folder lets others swap locks: the
 *                    GPU is not used while it is so.
 * With warn, a warning says why for the last two.
 */
#define GPU_LOCK_HELD   (-1)
#define GPU_LOCK_NONE   (-2)
#define GPU_LOCK_UNSAFE (-3)
int gpu_lock(const char *uuid, bool warn);

/* The lock folder: $SWEEP_GPU_LOCK_DIR, else /tmp. Borrowed (the environment). */
const char *gpu_lock_dir(void);

/*
 * The lock folder opened (O_DIRECTORY, close-on-exec) when it passes
 * gpu_lock's checks; -1, quietly, when it is missing or unsafe. For the
 * other files sweep keeps there (board.h).
 */
int gpu_lock_open_dir(void);

/* 0 when the lock folder passes gpu_lock's checks; else error() says why and what to do. */
int gpu_lock_check_dir(void);

#endif
