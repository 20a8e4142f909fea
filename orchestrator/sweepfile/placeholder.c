#include "placeholder.h"

#include "banned.h"

static int is_name_char(char c, int first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

int placeholder_is_name(const char *s, size_t len)
{
	size_t i;

	if (!len)
		return 0;
	for (i = 0; i < len; i++)
		if (!is_name_char(s[i], !i))
			return 0;
	return 1;
}

/* Length of the placeholder name if s starts "{name}", else 0. */
static size_t placeholder_at(const char *s)
{
	size_t n = 0;

	if (s[0] != '{' || !is_name_char(s[1], 1))
		return 0;
	while (is_name_char(s[1 + n], !n))
		n++;
	return s[1 + n] == '}' ? n : 0;
}

static int special_at(const char *s)
{
	return (s[0] == '{' && s[1] == '{') || (s[0] == '}' && s[1] == '}') || placeholder_at(s);
}

size_t placeholder_next(struct placeholder_piece *out, const char *s)
{
	size_t n;

	if (!*s)
		return 0;
	if ((s[0] == '{' && s[1] == '{') || (s[0] == '}' && s[1] == '}')) {
		out->kind = PLACEHOLDER_TEXT;
		out->start = s;
		out->len = 1;
		return 2;
	}
	n = placeholder_at(s);
	if (n) {
		out->kind = PLACEHOLDER_NAME;
		out->start = s + 1;
		out->len = n;
		return n + 2;
	}
	for (n = 1; s[n] && !special_at(s + n); n++)
		;
	out->kind = PLACEHOLDER_TEXT;
	out->start = s;
	out->len = n;
	return n;
}
