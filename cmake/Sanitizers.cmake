if(PODBENCH_SANITIZE AND PODBENCH_TSAN)
  message(FATAL_ERROR "PODBENCH_SANITIZE and PODBENCH_TSAN cannot be combined")
endif()
if(PODBENCH_SANITIZE)
  # -O1 (after the build type's -O2 on the command line, so it wins): the
  # sanitizer stage is most of CI's time, and on 2 cores -O1 compiles about a
  # third faster; the sanitizers find the same errors at -O1 (ASan's own
  # recommendation), and the tests' numbers do not depend on the level
  # (ISO C++ mode: no FP contraction).
  add_compile_options(-O1 -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined)
  add_link_options(-fsanitize=address,undefined)
endif()
if(PODBENCH_TSAN)
  add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
  add_link_options(-fsanitize=thread)
endif()
