#include "probe/hello.h"

#include <fmt/format.h>
#include <poll.h>

#include "model/json_io.h"
#include "net/auth.h"
#include "net/channel.h"
#include "net/message.h"
#include "probe/host_addresses.h"
#include "util/printable.h"

namespace fabscope::probe {
namespace {

using nlohmann::json;

constexpr int kProtocol = 1;

void refuse(perf::Channel& ch, const std::string& why, Millis timeout) {
    (void)ch.send({{"type", "error"}, {"message", why}}, timeout);
}

/// One client's exchange; "" when it ended well, else why not.
std::string answer_one(perf::Channel& ch, const std::vector<ProbeHost>& hosts, HostAddresses& ids,
                       const std::string& self_name, const perf::UdAddress& self,
                       const HelloOptions& o, const Register& reg) {
    const std::string nonce = o.secret.empty() ? "" : perf::make_nonce();
    if (!o.secret.empty() && nonce.empty()) return "no randomness for the challenge";
    json welcome = {
        {"type", "probe-welcome"}, {"protocol", kProtocol}, {"auth", !o.secret.empty()}};
    if (!nonce.empty()) welcome["nonce"] = nonce;
    if (auto s = ch.send(welcome, o.timeout); !s) return s.error().message;
    auto hello = ch.receive(o.timeout);
    if (!hello) return hello.error().message;
    if (perf::message_type(*hello) != "probe-hello") return "not a probe hello";
    if (!nonce.empty() &&
        !perf::auth_matches(o.secret, nonce, perf::message_text(*hello, "auth"))) {
        refuse(ch, "authentication failed: this agent needs the shared secret (--secret-file)",
               o.timeout);
        return "authentication failed";
    }
    const std::string name = perf::message_text(*hello, "host");
    const size_t host = find_host(hosts, name);
    if (host == hosts.size()) {
        // The name is the client's: at most 64 printable characters of it go anywhere.
        refuse(ch,
               fmt::format("host \"{}\" is not in this agent's pinglist", printable_capped(name)),
               o.timeout);
        return fmt::format("host \"{}\" is not in the pinglist", printable_capped(name));
    }
    // The pinglist's address is the identity: a hello naming another host is not taken.
    auto same = ids.is_of(host, ch.peer_ip());
    if (!same || !*same) {
        std::string why = same
                              ? fmt::format(
                                    "a hello as host \"{}\" comes from {}, not from its address in "
                                    "the pinglist ({})",
                                    name, ch.peer_ip(), host_part(hosts[host].where))
                              : fmt::format("a hello as host \"{}\" from {}: {}", name,
                                            ch.peer_ip(), same.error().message);
        refuse(ch, why, o.timeout);
        return why;
    }
    auto addr = json_io::guarded([&]() -> Result<perf::UdAddress> {
        return perf::ud_address_from_json(json_io::get_object(*hello, "ud"));
    });
    if (!addr) {
        refuse(ch, "bad address: " + addr.error().message, o.timeout);
        return fmt::format("{} sent a bad address: {}", name, addr.error().message);
    }
    if (auto st = reg(host, *addr); !st) {
        refuse(ch, st.error().message, o.timeout);
        return st.error().message;
    }
    json answer = {{"type", "probe-address"},
                   {"host", self_name},
                   {"ud", perf::ud_address_to_json(self)},
                   {"id", host}};
    if (auto s = ch.send(answer, o.timeout); !s) return s.error().message;
    return "";
}

}  // namespace

uint32_t probe_qkey(const std::string& secret, uint32_t dflt) {
    if (secret.empty()) return dflt;
    const std::string mac = perf::auth_response(secret, "fabscope probe qkey");
    return static_cast<uint32_t>(std::stoul(mac.substr(0, 8), nullptr, 16)) & 0x7FFFFFFFU;
}

Result<PeerAddress> say_hello(const ProbeHost& to, const std::string& self_name,
                              const perf::UdAddress& self, const HelloOptions& o) {
    auto fail = [&](const std::string& why) {
        return make_error(fmt::format("{} ({}): {}", to.name, to.where, why));
    };
    auto ch = perf::Channel::connect(to.where, o.timeout, {"probe agent", "probe"});
    if (!ch) return make_error(fmt::format("{}: {}", to.name, ch.error().message));
    auto welcome = ch->receive(o.timeout);
    if (!welcome) return fail(welcome.error().message);
    if (perf::message_type(*welcome) == "error")
        return fail("refused: " + perf::message_text(*welcome, "message", "no reason given"));
    if (perf::message_type(*welcome) != "probe-welcome" ||
        perf::message_int(*welcome, "protocol") != kProtocol)
        return fail("not a fabscope probe agent of this version");
    json hello = {
        {"type", "probe-hello"}, {"host", self_name}, {"ud", perf::ud_address_to_json(self)}};
    if (perf::message_bool(*welcome, "auth")) {
        if (o.secret.empty()) return fail("it needs the shared secret: give it with --secret-file");
        hello["auth"] = perf::auth_response(o.secret, perf::message_text(*welcome, "nonce"));
    }
    if (auto s = ch->send(hello, o.timeout); !s) return fail(s.error().message);
    auto answer = ch->receive(o.timeout);
    if (!answer) return fail(answer.error().message);
    if (perf::message_type(*answer) == "error")
        return fail("refused: " + perf::message_text(*answer, "message", "no reason given"));
    auto out = json_io::guarded([&]() -> Result<PeerAddress> {
        if (perf::message_type(*answer) != "probe-address") return make_error("not an address");
        PeerAddress p;
        p.ud = perf::ud_address_from_json(json_io::get_object(*answer, "ud"));
        p.id = json_io::get_uint<uint32_t>(*answer, "id");
        return p;
    });
    if (!out) return fail("a bad answer: " + out.error().message);
    return out;
}

Status serve_hellos(int listen_fd, const std::vector<ProbeHost>& hosts,
                    const std::string& self_name, const perf::UdAddress& self,
                    const perf::AllowList& allow, const HelloOptions& o, const Register& reg,
                    const HelloLog& log, const StopToken& stop) {
    HostAddresses ids(hosts);
    while (!stop.stop_requested()) {
        pollfd p[2] = {{listen_fd, POLLIN, 0}, {stop.fd(), POLLIN, 0}};
        if (::poll(p, 2, 1000) <= 0 || !(p[0].revents & POLLIN)) continue;
        auto ch = perf::Channel::accept(listen_fd, Millis(1));
        if (!ch) continue;
        ch->set_stop(&stop);
        if (!allow.allows(ch->peer_ip())) {
            log(fmt::format("refused {}: not in --allow ({})", ch->peer(), allow.describe()));
            // The list is the operator's: the log has it, the client is told no more than no.
            refuse(*ch, fmt::format("this agent does not answer {}", ch->peer_ip()), Millis(500));
            continue;
        }
        const std::string why = answer_one(*ch, hosts, ids, self_name, self, o, reg);
        if (!why.empty()) log(fmt::format("hello from {} failed: {}", ch->peer(), why));
    }
    return Ok{};
}

}  // namespace fabscope::probe
