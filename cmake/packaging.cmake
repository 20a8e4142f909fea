# A Debian package of what `cmake --install` installs: `cpack -G DEB` in the
# build folder writes sweep_<version>_<arch>.deb. Depends: is computed by
# dpkg-shlibdeps (package dpkg-dev) from the shared libraries the binary
# links, so it names the exact libslurm soname the build used (libslurm38
# for Slurm 22.05). Build packages from a release build: a sanitizer build
# also depends on libasan and libubsan.
set(CPACK_PACKAGE_NAME sweep)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "sweep")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "seeds x hyperparameters as one Slurm array job, reported as mean ± std")
set(CPACK_PACKAGE_CONTACT "sweep maintainers <sweep@localhost>" CACHE STRING
    "Maintainer: field of the Debian package")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)

set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# sbatch and scontrol; a site with its own Slurm has them without the package.
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "slurm-client")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "lmod, bash-completion")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Runs one training script for every combination of a few hyperparameters,\n\
each with several seeds, as one sbatch array job, records it in SQLite, and\n\
reports per setting the metric's mean ± standard deviation over seeds from\n\
Slurm accounting. Built against Slurm ${SLURM_VERSION} (${SLURM_SONAME}).")

include(CPack)
