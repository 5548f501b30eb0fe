// A C++ module with inline functions and templates (COMDAT) for the
// engine's two-stage compile check.
#include <vector>

template <typename T> struct Box {
  std::vector<T> Items;
  void add(T X) { Items.push_back(X); }
  T total() const {
    T S = T();
    for (const T &I : Items)
      S += I;
    return S;
  }
};

int shapes(int N) {
  Box<int> B;
  Box<double> D;
  for (int I = 0; I < N; ++I) {
    B.add(I);
    D.add(I * 0.5);
  }
  return B.total() + static_cast<int>(D.total());
}
