/* A small stack-machine interpreter with a computed-goto dispatch loop and a
 * switch-based one, plus a recursive expression evaluator. */
enum op { PUSH, ADD, SUB, MUL, DIV, DUP, SWAP, JZ, JMP, PRINT, HALT };

struct insn {
  enum op op;
  long arg;
};

extern void emit(long v);

long run_switch(const struct insn *code, long *stack, int max) {
  int sp = 0, pc = 0;
  for (;;) {
    const struct insn *i = &code[pc++];
    switch (i->op) {
    case PUSH:
      if (sp == max)
        return -1;
      stack[sp++] = i->arg;
      break;
    case ADD:
      stack[sp - 2] += stack[sp - 1];
      --sp;
      break;
    case SUB:
      stack[sp - 2] -= stack[sp - 1];
      --sp;
      break;
    case MUL:
      stack[sp - 2] *= stack[sp - 1];
      --sp;
      break;
    case DIV:
      if (stack[sp - 1] == 0)
        return -2;
      stack[sp - 2] /= stack[sp - 1];
      --sp;
      break;
    case DUP:
      stack[sp] = stack[sp - 1];
      ++sp;
      break;
    case SWAP: {
      long t = stack[sp - 1];
      stack[sp - 1] = stack[sp - 2];
      stack[sp - 2] = t;
      break;
    }
    case JZ:
      if (stack[--sp] == 0)
        pc = (int)i->arg;
      break;
    case JMP:
      pc = (int)i->arg;
      break;
    case PRINT:
      emit(stack[sp - 1]);
      break;
    case HALT:
      return sp ? stack[sp - 1] : 0;
    }
  }
}

long run_threaded(const struct insn *code, long *stack) {
  static void *labels[] = {&&l_push, &&l_add, &&l_sub, &&l_mul, &&l_div,
                           &&l_dup,  &&l_swap, &&l_jz, &&l_jmp, &&l_print,
                           &&l_halt};
  int sp = 0, pc = 0;
  long t;
#define NEXT goto *labels[code[pc].op]
  NEXT;
l_push:
  stack[sp++] = code[pc++].arg;
  NEXT;
l_add:
  stack[sp - 2] += stack[sp - 1], --sp, ++pc;
  NEXT;
l_sub:
  stack[sp - 2] -= stack[sp - 1], --sp, ++pc;
  NEXT;
l_mul:
  stack[sp - 2] *= stack[sp - 1], --sp, ++pc;
  NEXT;
l_div:
  stack[sp - 2] /= stack[sp - 1], --sp, ++pc;
  NEXT;
l_dup:
  stack[sp] = stack[sp - 1], ++sp, ++pc;
  NEXT;
l_swap:
  t = stack[sp - 1], stack[sp - 1] = stack[sp - 2], stack[sp - 2] = t, ++pc;
  NEXT;
l_jz:
  pc = stack[--sp] == 0 ? (int)code[pc].arg : pc + 1;
  NEXT;
l_jmp:
  pc = (int)code[pc].arg;
  NEXT;
l_print:
  emit(stack[sp - 1]), ++pc;
  NEXT;
l_halt:
  return sp ? stack[sp - 1] : 0;
#undef NEXT
}

struct expr {
  char kind; /* 'n', '+', '*', '-', '?' */
  double num;
  struct expr *a, *b, *c;
};

double eval(const struct expr *e) {
  switch (e->kind) {
  case 'n':
    return e->num;
  case '+':
    return eval(e->a) + eval(e->b);
  case '*':
    return eval(e->a) * eval(e->b);
  case '-':
    return -eval(e->a);
  case '?':
    return eval(e->a) != 0.0 ? eval(e->b) : eval(e->c);
  }
  return __builtin_nan("");
}
