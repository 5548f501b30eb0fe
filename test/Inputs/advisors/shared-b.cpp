#include "shared-inline.h"
int second(int *a) { return shared(a, 8) - 1; }
