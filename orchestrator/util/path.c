#include "path.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

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
