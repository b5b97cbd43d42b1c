// report.html's backend-space section: the space a backend declared and what it leaves out, so
// a reader knows which part of the problem space this run never drew (issue 34 item 1).
#include <string>

#include "reports/html_sections.hpp"
#include "reports/report_text.hpp"

namespace mlacheck::html {

std::string space_section(const SupportSpace& space) {
  const std::vector<std::string> excluded = space_excludes(space);
  std::string body = "<p>The property sweep was drawn within the backend's declared space <code>" +
                     markup_escape(to_text(space)) + "</code>.</p>\n";
  if (excluded.empty()) {
    body += "<p>The backend's space excludes nothing of the sweep's problem space.</p>\n";
  } else {
    body += "<p>The backend's space excludes (never drawn, so never checked by this run):</p>\n<ul>\n";
    for (const std::string& e : excluded) body += "<li>" + markup_escape(e) + "</li>\n";
    body += "</ul>\n";
  }
  return section("backend-space", "Backend's support space", body);
}

}  // namespace mlacheck::html
