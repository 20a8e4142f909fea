# Turns a text file into a C source defining a NUL-terminated char array.
# Usage: cmake -DIN=file -DOUT=file.c -DSYMBOL=name -P embed.cmake
file(READ "${IN}" hex HEX)
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "(0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,0x..,)" "\\1\n" body "${body}")
file(WRITE "${OUT}" "/* Generated from ${IN} by cmake/embed.cmake. */\n"
	"extern const char ${SYMBOL}[];\n"
	"const char ${SYMBOL}[] = {\n${body}0x00};\n")
