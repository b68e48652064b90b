#pragma once
// Where the user is: the view, the cursor and scroll of each, the filter,
// the sort orders, the help overlay. Keys change it (keys.h); views read it
// and keep the cursor in range and on screen.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fabscope::tui {

enum class ViewId : uint8_t { Fabric, Links, Counters, Pairs, Findings, Congestion };
inline constexpr size_t kViewCount = 6;
std::string_view view_name(ViewId v);  ///< "Fabric"
/// "fabric": the name in lower case, as --view, --dump and the key line say it.
std::string view_word(ViewId v);
/// "fabric", "links", ...: for --view and --dump.
std::optional<ViewId> parse_view(std::string_view s);

enum class LinkSort : uint8_t { Health, Rate, State, Errors, XmitWait, Traffic, Name };
inline constexpr size_t kLinkSorts = 7;
enum class CounterSort : uint8_t { Errors, XmitWait, Traffic, Name };
inline constexpr size_t kCounterSorts = 4;

struct Cursor {
    int row = 0;
    int col = 0;
    int top = 0;   ///< first row shown
    int left = 0;  ///< first column shown
};

struct ViewState {
    ViewId view = ViewId::Fabric;
    std::array<Cursor, kViewCount> cursors{};
    std::string filter;    ///< applied: name, GUID or LID
    bool editing = false;  ///< typing a filter
    std::string edit;      ///< what is being typed
    LinkSort link_sort = LinkSort::Health;
    CounterSort counter_sort = CounterSort::Errors;
    bool reverse = false;  ///< the sort order flipped
    int pair_test = 0;     ///< which test's grid the pairs view shows (wraps)
    bool help = false;
    bool paused = false;  ///< live polling paused
    std::string message;  ///< one-off note for the status line
    int page = 10;        ///< rows the current view shows (set when drawn)

    Cursor& cursor() { return cursors[static_cast<size_t>(view)]; }
    const Cursor& cursor() const { return cursors[static_cast<size_t>(view)]; }
    /// The filter in effect: what is being typed, else the applied one.
    const std::string& active_filter() const { return editing ? edit : filter; }
};

}  // namespace fabscope::tui
