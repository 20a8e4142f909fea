# Fails when a source file of DIRS (;-separated) includes a header matching
# PATTERN (a regular expression on the text between #include's brackets).
# EXCEPT (;-separated file names) are passed over.
# aggregate/ uses it to stay free of libslurm and SQLite, whose headers live
# in the system include folder where no include path could hide them, and
# the folders use it to keep their direction (ops/ below cmd/, the models of
# aggregate/ below their printers).
foreach(dir ${DIRS})
  file(GLOB files ${dir}/*.c ${dir}/*.h)
  foreach(f ${files})
    get_filename_component(name ${f} NAME)
    list(FIND EXCEPT ${name} skip)
    if(NOT skip EQUAL -1)
      continue()
    endif()
    file(STRINGS ${f} lines REGEX "^[ \t]*#[ \t]*include")
    foreach(line ${lines})
      if(line MATCHES "[<\"](${PATTERN})[>\"]")
        message(FATAL_ERROR "${f}: '${line}': ${REASON}")
      endif()
    endforeach()
  endforeach()
endforeach()
