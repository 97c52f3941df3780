# Helpers for the project's own tests: compile checks run by ctest.
#
# tessera_add_compile_check(NAME <test> LANGUAGE CXX|CUDA|HIP SOURCE <file>
#                           [EXPECT_FAIL] [EXPECT_REGEX <regex>] [MAX_ERRORS <n>]
#                           [OBJECT_CONTAINS <string>] [PTX_ARCH <cc>] [ONE_TARGET] [LABELS <labels...>])
# adds a ctest test that compiles SOURCE on its own (include/ on the path, warnings as errors).
# With EXPECT_FAIL the compile must fail, its output must match EXPECT_REGEX and show at most
# MAX_ERRORS error lines (one static_assert should stop the cascade). With OBJECT_CONTAINS the
# object file must contain that string (e.g. the name of an AMD code object). CUDA_PTX writes the
# PTX for compute_<PTX_ARCH> (default 80; 90a for wgmma and the other sm_90a instructions).
# ONE_TARGET compiles CUDA for the last of CMAKE_CUDA_ARCHITECTURES only and HIP for the first of
# TESSERA_HIP_ARCHITECTURES only: enough where the check is about the source (a header's includes),
# not about each target's code, and a third of the time of three HIP targets.
#
# tessera_add_ptx_checks(NAME <prefix> SOURCE <file> [PTX_ARCH <cc>] INSTRUCTIONS <instr...>)
# compiles SOURCE to PTX once (test <prefix>.compile, a fixture) and adds one test per
# instruction, <prefix>.<instr with '.' and ':' as '_'>, that finds it in that PTX.

set(TESSERA_COMPILE_CHECK_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/RunCompileCheck.cmake)

# -gencode flags for CMAKE_CUDA_ARCHITECTURES (80;90a -> sm_80 and sm_90a machine code).
function(tessera_cuda_gencode_flags out)
  set(flags "")
  foreach(arch IN LISTS CMAKE_CUDA_ARCHITECTURES)
    string(REGEX REPLACE "-(real|virtual)$" "" arch "${arch}")
    list(APPEND flags "-gencode=arch=compute_${arch},code=sm_${arch}")
  endforeach()
  set(${out} ${flags} PARENT_SCOPE)
endfunction()

function(tessera_add_compile_check)
  cmake_parse_arguments(A "EXPECT_FAIL;NO_SPILLS;ONE_TARGET" "NAME;LANGUAGE;SOURCE;EXPECT_REGEX;MAX_ERRORS;OBJECT_CONTAINS;PTX_ARCH" "LABELS"
                        ${ARGN})
  set(obj ${CMAKE_CURRENT_BINARY_DIR}/compile_checks/${A_NAME}.o)
  set(inc -I${PROJECT_SOURCE_DIR}/include)
  if(A_LANGUAGE STREQUAL "CXX")
    set(compiler ${CMAKE_CXX_COMPILER})
    set(flags -std=c++20 ${inc} ${TESSERA_WARNINGS} -x c++ -c -o ${obj})
  elseif(A_LANGUAGE STREQUAL "CUDA")
    tessera_cuda_gencode_flags(gencode)
    if(A_ONE_TARGET)
      list(GET gencode -1 gencode)
    endif()
    set(compiler ${CMAKE_CUDA_COMPILER})
    set(flags -std=c++20 ${inc} ${TESSERA_CUDA_FLAGS} ${gencode} -x cu -c -o ${obj})
    if(A_NO_SPILLS)
      list(APPEND flags -O3 -Xptxas -v)
    endif()
    if(CMAKE_CUDA_HOST_COMPILER)
      list(APPEND flags -ccbin ${CMAKE_CUDA_HOST_COMPILER})
    endif()
  elseif(A_LANGUAGE STREQUAL "CUDA_PTX")
    # The PTX (text), for checks of which instructions a kernel uses.
    if(NOT A_PTX_ARCH)
      set(A_PTX_ARCH 80)
    endif()
    set(compiler ${CMAKE_CUDA_COMPILER})
    set(flags -std=c++20 ${inc} ${TESSERA_CUDA_FLAGS} --gpu-architecture=compute_${A_PTX_ARCH} -x cu -ptx -o ${obj})
    if(CMAKE_CUDA_HOST_COMPILER)
      list(APPEND flags -ccbin ${CMAKE_CUDA_HOST_COMPILER})
    endif()
  elseif(A_LANGUAGE STREQUAL "HIP")
    set(compiler ${TESSERA_HIPCC})
    set(flags -std=c++20 ${inc} -Wall -Werror -x hip)
    set(hip_archs ${TESSERA_HIP_ARCHITECTURES})
    if(A_ONE_TARGET)
      list(GET hip_archs 0 hip_archs)
    endif()
    foreach(arch IN LISTS hip_archs)
      list(APPEND flags --offload-arch=${arch})
    endforeach()
    list(APPEND flags -c -o ${obj})
  else()
    message(FATAL_ERROR "tessera_add_compile_check: unknown LANGUAGE '${A_LANGUAGE}'; use CXX, CUDA, CUDA_PTX or HIP")
  endif()
  if(NOT A_MAX_ERRORS)
    set(A_MAX_ERRORS 0)
  endif()
  string(REPLACE ";" "|" flags "${flags}")
  add_test(NAME ${A_NAME}
           COMMAND ${CMAKE_COMMAND}
                   -DCOMPILER=${compiler} "-DFLAGS=${flags}" -DSOURCE=${A_SOURCE} -DOBJECT=${obj}
                   -DEXPECT_FAIL=${A_EXPECT_FAIL} "-DEXPECT_REGEX=${A_EXPECT_REGEX}" -DMAX_ERRORS=${A_MAX_ERRORS}
                   "-DOBJECT_CONTAINS=${A_OBJECT_CONTAINS}" -DNO_SPILLS=${A_NO_SPILLS}
                   -P ${TESSERA_COMPILE_CHECK_SCRIPT})
  set_tests_properties(${A_NAME} PROPERTIES LABELS "compile;${A_LABELS}")
endfunction()

function(tessera_add_ptx_checks)
  cmake_parse_arguments(A "" "NAME;SOURCE;PTX_ARCH" "INSTRUCTIONS" ${ARGN})
  if(NOT A_PTX_ARCH)
    set(A_PTX_ARCH 80)
  endif()
  tessera_add_compile_check(NAME ${A_NAME}.compile LANGUAGE CUDA_PTX SOURCE ${A_SOURCE} PTX_ARCH ${A_PTX_ARCH} LABELS ptx)
  set_tests_properties(${A_NAME}.compile PROPERTIES FIXTURES_SETUP ${A_NAME})
  foreach(instruction IN LISTS A_INSTRUCTIONS)
    string(REGEX REPLACE "[.:]+" "_" name "${instruction}")
    string(REPLACE "." "\\." pattern "${instruction}")
    add_test(NAME ${A_NAME}.${name}
             COMMAND ${CMAKE_COMMAND} -DOBJECT=${CMAKE_CURRENT_BINARY_DIR}/compile_checks/${A_NAME}.compile.o
                     "-DOBJECT_CONTAINS=${pattern}" -P ${TESSERA_COMPILE_CHECK_SCRIPT})
    set_tests_properties(${A_NAME}.${name} PROPERTIES LABELS ptx FIXTURES_REQUIRED ${A_NAME})
  endforeach()
endfunction()
