// The second module of prog.c's program.
int table(int x) {
  switch (x) {
  case 0: return 7;
  case 1: return 11;
  case 2: return 13;
  case 3: return 17;
  case 4: return 19;
  default: return x * x - 1;
  }
}
