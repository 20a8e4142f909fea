#ifndef SWEEP_BANNED_H
#define SWEEP_BANNED_H

/*
 * Functions that overflow buffers or keep hidden state. Use strbuf
 * (strbuf.h) or snprintf instead. Included last by every .c file of sweep,
 * so a use becomes a compile error.
 */
#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy BANNED(strcpy)
#undef strcat
#define strcat BANNED(strcat)
#undef strncpy
#define strncpy BANNED(strncpy)
#undef sprintf
#define sprintf BANNED(sprintf)
#undef vsprintf
#define vsprintf BANNED(vsprintf)
#undef strtok
#define strtok BANNED(strtok)
#undef gets
#define gets BANNED(gets)

#endif
