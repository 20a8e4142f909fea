#include "taskdir.h"

#include <inttypes.h>
#include <stdlib.h>
#include <unistd.h>

#include "error.h"
#include "path.h"

#include "banned.h"

int taskdir_layout_from(enum taskdir_layout *out, int64_t value, int64_t sweep_id)
{
	switch (value) {
	case TASKDIR_FLAT:
		*out = TASKDIR_FLAT;
		return 0;
	case TASKDIR_GROUPED:
		*out = TASKDIR_GROUPED;
		return 0;
	}
	return error("sweep %" PRId64 " has task folder layout %" PRId64 ", which this sweep does "
	             "not know: a newer sweep submitted it; read it with that version",
	             sweep_id, value);
}

char *taskdir_path(const char *sweep_dir, enum taskdir_layout layout, size_t index)
{
	if (layout == TASKDIR_GROUPED)
		return xstrfmt("%s/tasks/%zu/%zu", sweep_dir, index / TASKDIR_GROUP, index);
	return xstrfmt("%s/tasks/%zu", sweep_dir, index);
}

char *taskdir_file(const char *sweep_dir, enum taskdir_layout layout, size_t index,
                   const char *name)
{
	char *dir = taskdir_path(sweep_dir, layout, index);
	char *path = xstrfmt("%s/%s", dir, name);

	free(dir);
	return path;
}

void taskdir_shell(struct strbuf *out, enum taskdir_layout layout)
{
	if (layout == TASKDIR_GROUPED)
		strbuf_addf(out, "$SWEEP_DIR/tasks/$(( SWEEP_TASK_INDEX / %d ))/$SWEEP_TASK_INDEX",
		            TASKDIR_GROUP);
	else
		strbuf_addstr(out, "$SWEEP_DIR/tasks/$SWEEP_TASK_INDEX");
}

char *taskdir_pattern(const char *sweep_dir, enum taskdir_layout layout)
{
	if (layout == TASKDIR_GROUPED)
		return xstrfmt("%s/tasks/<index / %d>/<index>", sweep_dir, TASKDIR_GROUP);
	return xstrfmt("%s/tasks/<index>", sweep_dir);
}

static char *problem_if_there(const char *path, const char *what)
{
	return access(path, F_OK) == 0 ? path_private_problem(path, what) : NULL;
}

char *taskdir_private_problem(const char *sweep_dir, enum taskdir_layout layout, size_t index,
                              struct taskdir_memo *memo)
{
	size_t g = index / TASKDIR_GROUP;
	char *why = NULL;

	if (layout == TASKDIR_GROUPED && !(memo && memo->ok && memo->group == g)) {
		char *group = xstrfmt("%s/tasks/%zu", sweep_dir, g);

		why = problem_if_there(group, "task group folder");
		free(group);
		if (memo) {
			memo->ok = !why;
			memo->group = g;
		}
	}
	if (!why) {
		char *dir = taskdir_path(sweep_dir, layout, index);

		why = problem_if_there(dir, "task folder");
		free(dir);
	}
	return why;
}

int taskdir_make(const char *sweep_dir, enum taskdir_layout layout, size_t index)
{
	char *tasks = xstrfmt("%s/tasks", sweep_dir), *group = NULL;
	char *dir = taskdir_path(sweep_dir, layout, index);
	int ret = path_mkdir_private(tasks, "tasks folder", false);

	if (ret == 0 && layout == TASKDIR_GROUPED) {
		group = xstrfmt("%s/%zu", tasks, index / TASKDIR_GROUP);
		ret = path_mkdir_private(group, "task group folder", false);
	}
	if (ret == 0)
		ret = path_mkdir_private(dir, "task folder", false);
	free(group);
	free(dir);
	free(tasks);
	return ret;
}
