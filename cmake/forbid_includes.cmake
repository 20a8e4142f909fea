# Fails when a source file of DIRS (;-separated) includes a header matching
# PATTERN (a regular expression on the text between #include's brackets).
# aggregate/ uses it to stay free of libslurm and SQLite, whose headers live
# in the system include folder where no include path could hide them.
foreach(dir ${DIRS})
  file(GLOB files ${dir}/*.c ${dir}/*.h)
  foreach(f ${files})
    file(STRINGS ${f} lines REGEX "^[ \t]*#[ \t]*include")
    foreach(line ${lines})
      if(line MATCHES "[<\"](${PATTERN})[>\"]")
        message(FATAL_ERROR "${f}: '${line}': ${REASON}")
      endif()
    endforeach()
  endforeach()
endforeach()
