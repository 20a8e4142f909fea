#include "quote.h"

#include "banned.h"

void quote_sh(struct strbuf *out, const char *value)
{
	strbuf_addch(out, '\'');
	for (const char *p = value; *p; p++) {
		if (*p == '\'')
			strbuf_addstr(out, "'\\''");
		else if (*p == '\n')
			strbuf_addstr(out, "'$'\\n''");
		else
			strbuf_addch(out, *p);
	}
	strbuf_addch(out, '\'');
}

void quote_visible(struct strbuf *out, const char *buf, size_t len)
{
	const char *run = buf;

	for (const char *p = buf; p < buf + len; p++) {
		unsigned char c = (unsigned char)*p;

		if ((c >= 0x20 && c != 0x7f) || c == '\n' || c == '\t')
			continue;
		strbuf_add(out, run, (size_t)(p - run));
		strbuf_addch(out, '^');
		strbuf_addch(out, c == 0x7f ? '?' : (char)(c + '@'));
		run = p + 1;
	}
	strbuf_add(out, run, (size_t)(buf + len - run));
}

static int is_alpha(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

int quote_is_identifier(const char *name)
{
	if (!is_alpha((unsigned char)*name))
		return 0;
	for (name++; *name; name++)
		if (!is_alpha((unsigned char)*name) && !(*name >= '0' && *name <= '9'))
			return 0;
	return 1;
}
