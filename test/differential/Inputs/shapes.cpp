// A little C++: classes with virtual functions, templates, a lambda, and
// exceptions (invoke/landingpad), so names are mangled.
struct Shape {
  virtual ~Shape() {}
  virtual double area() const = 0;
  virtual const char *name() const { return "shape"; }
};

struct Rect : Shape {
  double W, H;
  Rect(double W, double H) : W(W), H(H) {}
  double area() const override { return W * H; }
  const char *name() const override { return "rect"; }
};

struct Circle : Shape {
  double R;
  explicit Circle(double R) : R(R) {}
  double area() const override { return 3.14159265358979 * R * R; }
};

template <typename T, int N> struct SmallVec {
  T Data[N];
  int Size = 0;
  bool push(const T &V) {
    if (Size == N)
      return false;
    Data[Size++] = V;
    return true;
  }
  template <typename F> T fold(T Init, F Fn) const {
    for (int I = 0; I < Size; ++I)
      Init = Fn(Init, Data[I]);
    return Init;
  }
};

struct TooBig {
  double Area;
};

double checkedArea(const Shape &S, double Limit) {
  double A = S.area();
  if (A > Limit)
    throw TooBig{A};
  return A;
}

double totalArea(Shape **Shapes, int N, double Limit) {
  double Sum = 0;
  for (int I = 0; I < N; ++I) {
    try {
      Sum += checkedArea(*Shapes[I], Limit);
    } catch (const TooBig &E) {
      Sum += Limit;
    }
  }
  return Sum;
}

int sumSquares(int N) {
  SmallVec<int, 16> V;
  for (int I = 0; I < N && V.push(I); ++I)
    ;
  return V.fold(0, [](int Acc, int X) { return Acc + X * X; });
}

double demo() {
  Rect R(2, 3);
  Circle C(1);
  Shape *All[] = {&R, &C};
  return totalArea(All, 2, 5.0) + sumSquares(10);
}
