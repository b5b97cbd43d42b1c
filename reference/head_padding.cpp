#include "reference/head_padding.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mlacheck {

namespace {

// Rows of a [rows, heads, inner] array; throws when the size is not a whole number of rows.
std::size_t rows_of(std::size_t size, int heads, int inner, const char* what) {
  const std::size_t row = static_cast<std::size_t>(heads) * static_cast<std::size_t>(inner);
  if (inner < 1 || size % row != 0) {
    throw std::invalid_argument(std::string(what) + ": " + std::to_string(size) + " values are not rows of " +
                                std::to_string(heads) + " heads x " + std::to_string(inner));
  }
  return size / row;
}

}  // namespace

template <class T>
std::vector<T> pad_heads(const MlaDecodeProblem& p, std::span<const T> x, int inner) {
  const int h = heads(p);
  const int padded = padded_heads(p);
  const std::size_t rows = rows_of(x.size(), h, inner, "pad_heads");
  const auto width = static_cast<std::size_t>(inner);
  std::vector<T> out(rows * static_cast<std::size_t>(padded) * width);
  for (std::size_t r = 0; r < rows; ++r) {
    for (int j = 0; j < padded; ++j) {
      const T* from = x.data() + (r * static_cast<std::size_t>(h) + static_cast<std::size_t>(padded_head_source(p, j))) * width;
      std::copy_n(from, width, out.data() + (r * static_cast<std::size_t>(padded) + static_cast<std::size_t>(j)) * width);
    }
  }
  return out;
}

template <class T>
std::vector<T> unpad_heads(const MlaDecodeProblem& p, std::span<const T> x, int inner) {
  const int h = heads(p);
  const int padded = padded_heads(p);
  const std::size_t rows = rows_of(x.size(), padded, inner, "unpad_heads");
  const auto width = static_cast<std::size_t>(inner);
  std::vector<T> out(rows * static_cast<std::size_t>(h) * width);
  for (std::size_t r = 0; r < rows; ++r) {
    for (int head = 0; head < h; ++head) {
      const T* from =
          x.data() + (r * static_cast<std::size_t>(padded) + static_cast<std::size_t>(unpadded_head_location(p, head))) * width;
      std::copy_n(from, width, out.data() + (r * static_cast<std::size_t>(h) + static_cast<std::size_t>(head)) * width);
    }
  }
  return out;
}

template std::vector<float> pad_heads(const MlaDecodeProblem&, std::span<const float>, int);
template std::vector<double> pad_heads(const MlaDecodeProblem&, std::span<const double>, int);
template std::vector<float> unpad_heads(const MlaDecodeProblem&, std::span<const float>, int);
template std::vector<double> unpad_heads(const MlaDecodeProblem&, std::span<const double>, int);

}  // namespace mlacheck
