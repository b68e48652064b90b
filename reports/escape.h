#pragma once
// Escaping for every renderer of reports/: text from the fabric (node
// descriptions, findings' summaries) is untrusted input, and comes out as
// text in HTML, XML, Markdown and CSV, never as markup.

#include <string>
#include <string_view>

namespace fabscope {

/// & < > " ' as entities: safe in HTML/XML text and in quoted attributes.
/// Control characters other than tab and newline become U+FFFD (XML 1.0
/// forbids them).
std::string html_escape(std::string_view s);
/// The same for XML (JUnit): html_escape is valid XML.
inline std::string xml_escape(std::string_view s) {
    return html_escape(s);
}
/// A field of a CSV record (RFC 4180): quoted when it holds a comma, a quote,
/// CR or LF (quotes doubled); a leading = + - @ gets a ' before it so a
/// spreadsheet does not run it as a formula.
std::string csv_field(std::string_view s);
/// Text for a Markdown table cell or paragraph: markup characters
/// backslash-escaped (< > & too: no HTML entities in a ticket's text),
/// newlines and pipes made harmless.
std::string md_escape(std::string_view s);
/// A string usable in an HTML id: letters, digits, '-' and '_' kept, every
/// other byte as '_'.
std::string html_id(std::string_view s);

}  // namespace fabscope
