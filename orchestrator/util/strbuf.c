#include "strbuf.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "banned.h"

char strbuf_slopbuf[1];

static void out_of_memory(size_t size)
{
	fprintf(stderr, "sweep: error: out of memory (allocating %zu bytes)\n", size);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		out_of_memory(size);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		out_of_memory(n * size);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);

	if (!q)
		out_of_memory(size);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = xmalloc(len + 1);

	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *xstrfmt(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strbuf_detach(&sb, NULL);
}

void *xgrow(void *array, size_t *alloc, size_t n, size_t elem_size)
{
	size_t want;

	if (n <= *alloc)
		return array;
	want = *alloc < 8 ? 8 : *alloc + *alloc / 2;
	if (want < n)
		want = n;
	if (want > SIZE_MAX / elem_size)
		out_of_memory(SIZE_MAX);
	*alloc = want;
	return xrealloc(array, want * elem_size);
}

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->alloc = 0;
	sb->len = 0;
	sb->buf = strbuf_slopbuf;
	if (hint)
		strbuf_grow(sb, hint);
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc)
		free(sb->buf);
	strbuf_init(sb, 0);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *res;

	strbuf_grow(sb, 0);
	res = sb->buf;
	if (len)
		*len = sb->len;
	strbuf_init(sb, 0);
	return res;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	int fresh = !sb->alloc;
	size_t need = sb->len + extra + 1;

	if (need < sb->len)
		out_of_memory(SIZE_MAX);
	if (need <= sb->alloc)
		return;
	if (fresh)
		sb->buf = NULL;
	sb->buf = xgrow(sb->buf, &sb->alloc, need, 1);
	if (fresh)
		sb->buf[0] = '\0';
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (!sb->alloc) {
		/* Nothing allocated: only 0 is a valid length. */
		return;
	}
	sb->len = len;
	sb->buf[len] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	strbuf_grow(sb, 64);
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	if ((size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, (size_t)n);
		n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_trim_trailing_newlines(struct strbuf *sb)
{
	while (sb->len && (sb->buf[sb->len - 1] == '\n' || sb->buf[sb->len - 1] == '\r'))
		strbuf_setlen(sb, sb->len - 1);
}

/* The length of the printable UTF-8 character at s, or 0 (a control, not UTF-8). */
static size_t plain_char(const unsigned char *s)
{
	size_t len, i;
	uint32_t cp;

	if (s[0] >= 0x20 && s[0] < 0x7f)
		return 1;
	if (s[0] < 0xc2 || s[0] > 0xf4)
		return 0; /* a control, DEL, a continuation byte, an overlong start */
	len = s[0] < 0xe0 ? 2 : s[0] < 0xf0 ? 3 : 4;
	cp = s[0] & (0x3fu >> (len - 1));
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0; /* the NUL at the end included */
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp < 0xa0)
		return 0; /* overlong, beyond Unicode, a surrogate, a C1 control */
	return len;
}

void strbuf_add_shown(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0, len;

	while (p[n]) {
		if (n >= 60) {
			strbuf_addstr(sb, "...");
			return;
		}
		if (p[n] == '\n' || p[n] == '\t') {
			strbuf_addstr(sb, p[n] == '\n' ? "\\n" : "\\t");
			n++;
		} else if ((len = plain_char(p + n))) {
			strbuf_add(sb, p + n, len);
			n += len;
		} else {
			strbuf_addf(sb, "\\x%02x", p[n++]);
		}
	}
}

bool strbuf_is_plain(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	while (*p) {
		if (!(n = plain_char(p)))
			return false;
		p += n;
	}
	return true;
}

void strbuf_add_escaped(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n;

	if (strbuf_is_plain(s)) {
		strbuf_addstr(sb, s);
		return;
	}
	while (*p) {
		if (*p == '\\') {
			strbuf_addstr(sb, "\\\\");
			p++;
		} else if (*p == '\n' || *p == '\t') {
			strbuf_addstr(sb, *p == '\n' ? "\\n" : "\\t");
			p++;
		} else if ((n = plain_char(p))) {
			strbuf_add(sb, p, n);
			p += n;
		} else {
			strbuf_addf(sb, "\\x%02x", *p++);
		}
	}
}

int strbuf_read_file(struct strbuf *sb, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	for (;;) {
		strbuf_grow(sb, 8192);
		n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0) {
			int saved = errno;

			if (errno == EINTR)
				continue;
			close(fd);
			errno = saved;
			return -1;
		}
		if (n == 0)
			break;
		sb->len += (size_t)n;
	}
	sb->buf[sb->len] = '\0';
	close(fd);
	return 0;
}

int strbuf_read_file_max(struct strbuf *sb, const char *path, size_t max, int flags)
{
	/* O_NONBLOCK: opening a FIFO must not wait for a writer. */
	int oflags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
	int fd, saved = 0;
	size_t got = 0;
	struct stat st;

	if (flags & STRBUF_READ_NOFOLLOW)
		oflags |= O_NOFOLLOW;
	fd = open(path, oflags);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		saved = errno;
		goto fail;
	}
	if (S_ISFIFO(st.st_mode) && (flags & STRBUF_READ_PIPE)) {
		/* Now wait for data: read returns 0 at once when nobody writes. */
		if (fcntl(fd, F_SETFL, O_RDONLY) < 0) {
			saved = errno;
			goto fail;
		}
	} else if (!S_ISREG(st.st_mode)) {
		saved = EINVAL;
		goto fail;
	} else if ((uint64_t)st.st_size > max) {
		saved = EFBIG;
		goto fail;
	}
	for (;;) {
		size_t room;
		ssize_t n;

		strbuf_grow(sb, 8192);
		room = sb->alloc - sb->len - 1;
		/* One byte past max tells a file of max bytes from a larger one. */
		if (max - got < room - 1)
			room = max - got + 1;
		n = read(fd, sb->buf + sb->len, room);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			saved = errno;
			goto fail;
		}
		if (n == 0)
			break;
		got += (size_t)n;
		sb->len += (size_t)n;
		sb->buf[sb->len] = '\0';
		if (got > max) {
			saved = EFBIG;
			goto fail;
		}
	}
	sb->buf[sb->len] = '\0';
	close(fd);
	return 0;
fail:
	close(fd);
	errno = saved;
	return -1;
}
