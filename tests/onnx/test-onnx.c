/*
** test-onnx.c -- placeholder, filled below.
*/
#include "test.h"
int main(void) { TEST_DONE(); }
