#include "path.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "strbuf.h"

#include "banned.h"

char *path_absolute(const char *path, const char *cwd)
{
	if (path[0] == '/')
		return xstrdup(path);
	while (path[0] == '.' && path[1] == '/')
		path += 2;
	if (!strcmp(path, "."))
		return xstrdup(cwd);
	return xstrfmt("%s/%s", cwd, path);
}

int path_mkdir_p(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = 0;

	strbuf_addstr(&sb, path);
	for (size_t i = 1; i <= sb.len; i++) {
		if (sb.buf[i] != '/' && sb.buf[i] != '\0')
			continue;
		sb.buf[i] = '\0';
		if (mkdir(sb.buf, 0777) < 0 && errno != EEXIST) {
			ret = error("cannot create folder '%s': %s", sb.buf, strerror(errno));
			goto out;
		}
		sb.buf[i] = i < sb.len ? '/' : '\0';
	}
out:
	strbuf_release(&sb);
	return ret;
}

static bool is_program(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

char *path_which(const char *name)
{
	const char *dirs = getenv("PATH");

	if (!name || !*name)
		return NULL;
	if (strchr(name, '/'))
		return is_program(name) ? xstrdup(name) : NULL;
	for (const char *p = dirs ? dirs : ""; p;) {
		const char *colon = strchr(p, ':');
		size_t n = colon ? (size_t)(colon - p) : strlen(p);
		/* An empty entry is the current folder, as in the shell. */
		char *cand = n ? xstrfmt("%.*s/%s", (int)n, p, name) : xstrfmt("./%s", name);

		if (is_program(cand))
			return cand;
		free(cand);
		p = colon ? colon + 1 : NULL;
	}
	return NULL;
}
