#include "reports/report_merge.hpp"

#include <unordered_map>

#include "reports/report_error.hpp"

namespace mlacheck {

std::vector<CaseResult> merge_reports(std::span<const CsvReport> reports) {
  struct Origin {
    const std::string* path;
    int line;
  };
  std::unordered_map<std::string, Origin> first;
  std::vector<CaseResult> out;
  for (const CsvReport& r : reports) {
    for (std::size_t i = 0; i < r.rows.size(); ++i) {
      const auto [it, fresh] = first.emplace(r.rows[i].id, Origin{&r.path, r.lines[i]});
      if (!fresh) {
        throw ReportError("duplicate id '" + r.rows[i].id + "' in " + *it->second.path + ":" +
                          std::to_string(it->second.line) + " and " + r.path + ":" + std::to_string(r.lines[i]));
      }
      out.push_back(r.rows[i]);
    }
  }
  return out;
}

}  // namespace mlacheck
