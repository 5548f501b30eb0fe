#include "linked-shared.h"
int second(int *a, int n) { return shared(a, n) - 1; }
