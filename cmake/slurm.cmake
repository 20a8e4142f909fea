# libslurm: headers and library, from -DSLURM_ROOT=PREFIX when given (a
# site's own Slurm; only that prefix is searched), else the system paths.
# Debian ships no slurm.pc. libslurm changes its soname with every Slurm
# release, so the binary is built against the cluster's own Slurm, as
# Slurm's plugins are.
#
# Defines the imported target Slurm::slurm (headers, library, and the
# soname it was built against for `sweep --version`), plus SLURM_INCLUDE_DIR,
# SLURM_LIBRARY, SLURM_VERSION and SLURM_SONAME.
set(SLURM_ROOT "" CACHE PATH "Prefix of the Slurm to build against (include/slurm, lib)")

# A changed SLURM_ROOT searches again instead of keeping the cached paths.
if(DEFINED _SWEEP_SLURM_ROOT_SEEN AND NOT "${SLURM_ROOT}" STREQUAL "${_SWEEP_SLURM_ROOT_SEEN}")
  unset(SLURM_INCLUDE_DIR CACHE)
  unset(SLURM_LIBRARY CACHE)
endif()
set(_SWEEP_SLURM_ROOT_SEEN "${SLURM_ROOT}" CACHE INTERNAL "")

if(SLURM_ROOT)
  find_path(SLURM_INCLUDE_DIR slurm/slurm.h HINTS ${SLURM_ROOT} PATH_SUFFIXES include
            NO_DEFAULT_PATH)
  find_library(SLURM_LIBRARY slurm HINTS ${SLURM_ROOT}
               PATH_SUFFIXES lib lib64 lib/${CMAKE_LIBRARY_ARCHITECTURE} NO_DEFAULT_PATH)
else()
  find_path(SLURM_INCLUDE_DIR slurm/slurm.h)
  find_library(SLURM_LIBRARY slurm)
endif()
if(NOT SLURM_INCLUDE_DIR OR NOT SLURM_LIBRARY)
  if(SLURM_ROOT)
    set(where "under SLURM_ROOT='${SLURM_ROOT}' (include/slurm/slurm.h, lib/libslurm.so)")
  else()
    set(where "in the system paths (Debian: apt-get install libslurm-dev; a site's own Slurm: -DSLURM_ROOT=PREFIX)")
  endif()
  message(FATAL_ERROR "libslurm not found ${where}: include '${SLURM_INCLUDE_DIR}', library '${SLURM_LIBRARY}'")
endif()

# The release from the headers ("22.05.8") and the soname of the library.
file(STRINGS ${SLURM_INCLUDE_DIR}/slurm/slurm_version.h _slurm_vline
     REGEX "^#define[ \t]+SLURM_VERSION_NUMBER[ \t]+0x[0-9a-fA-F]+")
string(REGEX REPLACE ".*0x([0-9a-fA-F]+).*" "\\1" _slurm_hex "${_slurm_vline}")
math(EXPR _slurm_num "0x${_slurm_hex}")
math(EXPR _slurm_major "(${_slurm_num} >> 16) & 255")
math(EXPR _slurm_minor "(${_slurm_num} >> 8) & 255")
math(EXPR _slurm_micro "${_slurm_num} & 255")
if(_slurm_minor LESS 10)
  set(_slurm_minor "0${_slurm_minor}")
endif()
set(SLURM_VERSION "${_slurm_major}.${_slurm_minor}.${_slurm_micro}")

set(SLURM_SONAME "")
if(CMAKE_OBJDUMP)
  execute_process(COMMAND ${CMAKE_OBJDUMP} -p ${SLURM_LIBRARY} OUTPUT_VARIABLE _slurm_dump
                  ERROR_QUIET)
  string(REGEX MATCH "SONAME[ \t]+([^ \t\n]+)" _slurm_m "${_slurm_dump}")
  set(SLURM_SONAME "${CMAKE_MATCH_1}")
endif()
if(NOT SLURM_SONAME)
  file(REAL_PATH ${SLURM_LIBRARY} _slurm_real)
  get_filename_component(_slurm_real ${_slurm_real} NAME)
  string(REGEX MATCH "^libslurm\\.so\\.[0-9]+" SLURM_SONAME "${_slurm_real}")
endif()
set(_slurm_api 0)
if(SLURM_SONAME MATCHES "\\.so\\.([0-9]+)$")
  set(_slurm_api ${CMAKE_MATCH_1})
endif()
if(SLURM_ROOT)
  # The installed binary finds the site's libslurm where it was linked.
  get_filename_component(_slurm_libdir ${SLURM_LIBRARY} DIRECTORY)
  list(APPEND CMAKE_INSTALL_RPATH ${_slurm_libdir})
endif()
message(STATUS "Slurm ${SLURM_VERSION}: ${SLURM_INCLUDE_DIR}, ${SLURM_LIBRARY} (${SLURM_SONAME})")
if(SLURM_VERSION VERSION_LESS 22.05)
  message(WARNING "Slurm ${SLURM_VERSION} is older than 22.05, the oldest release sweep is built and tested against")
endif()

# Where this libslurm looks for slurm.conf when SLURM_CONF is unset: its
# sysconfdir, PREFIX/etc for a Slurm built with --sysconfdir=PREFIX/etc (as
# tests/cluster/build-slurm does), /etc/slurm for Debian's. sweep checks that
# file before calling slurm_init(), which would exit the process without one.
if(SLURM_ROOT AND NOT SLURM_ROOT STREQUAL "/usr")
  set(_slurm_conf_default "${SLURM_ROOT}/etc/slurm.conf")
else()
  set(_slurm_conf_default "/etc/slurm/slurm.conf")
endif()
set(SLURM_CONF_DEFAULT "${_slurm_conf_default}" CACHE STRING
    "slurm.conf that the Slurm built against reads when SLURM_CONF is unset")
if(DEFINED _SWEEP_SLURM_CONF_ROOT AND NOT "${SLURM_ROOT}" STREQUAL "${_SWEEP_SLURM_CONF_ROOT}")
  set(SLURM_CONF_DEFAULT "${_slurm_conf_default}" CACHE STRING "" FORCE)
endif()
set(_SWEEP_SLURM_CONF_ROOT "${SLURM_ROOT}" CACHE INTERNAL "")

add_library(Slurm::slurm UNKNOWN IMPORTED)
set_target_properties(Slurm::slurm PROPERTIES
  IMPORTED_LOCATION ${SLURM_LIBRARY}
  INTERFACE_INCLUDE_DIRECTORIES ${SLURM_INCLUDE_DIR}
  INTERFACE_COMPILE_DEFINITIONS "SWEEP_SLURM_SONAME=\"${SLURM_SONAME}\";SWEEP_SLURM_API=${_slurm_api};SWEEP_SLURM_CONF_DEFAULT=\"${SLURM_CONF_DEFAULT}\"")
