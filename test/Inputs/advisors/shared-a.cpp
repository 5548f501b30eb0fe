#include "shared-inline.h"
int first(int *a) { return shared(a, 4) + 1; }
