// Shared input: a member function in a namespace and an overloaded free
// function, for names given without their parameters
// (irtk-similarity/topk-qualified.test, python/test_store.py).
namespace mup {
struct OprtAdd {
  double Eval(const double *A, int N) const;
};

double OprtAdd::Eval(const double *A, int N) const {
  double S = 0;
  for (int I = 0; I < N; ++I)
    S += A[I];
  return S;
}

int scale(int X) { return X * 2; }
double scale(double X) { return X * 2.0; }
} // namespace mup
