# Generates ${PODBENCH_GENERATED_DIR}/git_version.cc at every build with the
# commit hash and a dirty flag; the file only changes when they do.
set(PODBENCH_GENERATED_DIR ${CMAKE_BINARY_DIR}/generated)
add_custom_target(podbench_git_version
  COMMAND ${CMAKE_COMMAND}
    -DSRC=${CMAKE_SOURCE_DIR} -DOUT=${PODBENCH_GENERATED_DIR}/git_version.cc
    -DVERSION=${PROJECT_VERSION}
    -P ${CMAKE_SOURCE_DIR}/cmake/WriteGitVersion.cmake
  BYPRODUCTS ${PODBENCH_GENERATED_DIR}/git_version.cc
  COMMENT "Recording git hash")
