# Script mode: installs the build tree into a fresh prefix, then builds and runs the consumer
# project against it with find_package, and again with add_subdirectory.
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    string(REPLACE ";" " " cmd "${ARGN}")
    message(FATAL_ERROR "install check: '${cmd}' failed (${rc})\n${out}${err}")
  endif()
  message(STATUS "${out}")
endfunction()

run(${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${WORK_DIR}/prefix)
if(NOT EXISTS ${WORK_DIR}/prefix/include/tessera/tessera.hpp)
  message(FATAL_ERROR "install check: the umbrella header was not installed")
endif()
foreach(mode package subdir)
  run(${CMAKE_COMMAND} -S ${SOURCE_DIR}/test/install -B ${WORK_DIR}/${mode} -DCMAKE_CXX_COMPILER=${CXX}
      -DTESSERA_CONSUME=${mode} -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix -DTESSERA_SOURCE_DIR=${SOURCE_DIR})
  run(${CMAKE_COMMAND} --build ${WORK_DIR}/${mode})
  run(${WORK_DIR}/${mode}/consumer)
endforeach()
