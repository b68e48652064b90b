#pragma once
// A relay between the lab's clients and the simulator, on the simulator's
// own socket protocol (umad2sim <-> ibsim: abstract unix datagram sockets
// "<name>:ctl", "<name>:out<client>", "<name>:in<pid>"). Clients started by
// `lab exec` talk to the relay's name; the relay passes everything on to
// ibsim and back, except the MADs of nodes the lab has made silent.
//
// Why: ibsim answers every MAD at once (a dropped one with status 110), so it
// cannot play a switch whose management agent hangs, the case that stalls
// real diagnostics. A silent node here gets no answer at all, to any MAD
// addressed to it or routed through it by directed route; the simulator
// itself and the SM are untouched.

#include <chrono>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "lab/dr_path.h"

namespace fabscope {

struct SilentNode {
    uint64_t guid = 0;
    uint16_t lid = 0;
};

class SimProxy {
  public:
    /// `sim_name`: the simulator's IBSIM_SOCKNAME; `proxy_name`: the one
    /// clients use; `silent_file`: JSON list of silent nodes, re-read when it changes.
    SimProxy(std::string sim_name, std::string proxy_name, std::string silent_file);
    ~SimProxy();
    SimProxy(const SimProxy&) = delete;
    SimProxy& operator=(const SimProxy&) = delete;

    /// Binds the relay's sockets; false (with errno set) if it cannot.
    bool start();
    /// Relays whatever is ready, waiting at most `timeout`.
    void poll_once(std::chrono::milliseconds timeout);
    /// Forgets clients whose process is gone.
    void forget_dead_clients();

    uint64_t dropped() const { return dropped_; }

  private:
    struct Client {
        int pid = 0;
        int id = -1;                               // simulator client id, after connect
        int ctl_relay = -1;                        // "<sim>:ctl<pid>", connected to "<sim>:ctl"
        int data_relay = -1;                       // "<sim>:in<pid>", connected to "<sim>:out<id>"
        std::vector<std::vector<uint8_t>> to_sim;  // waiting for the simulator's socket
        std::vector<std::vector<uint8_t>> to_client;  // waiting for the client's socket
    };

    void on_ctl();
    void on_request(int id);
    void on_reply(Client& c);
    void flush(Client& c);
    bool drop_request(const std::vector<uint8_t>& req) const;
    bool drop_reply(const std::vector<uint8_t>& rep);
    void reload_silent();
    void close_client(Client& c);

    std::string sim_;
    std::string proxy_;
    std::string silent_file_;
    int ctl_listen_ = -1;
    std::vector<int> out_;           // "<proxy>:out<id>"
    std::map<int, Client> clients_;  // by pid
    std::map<int, int> pid_of_id_;
    std::vector<SilentNode> silent_;
    std::set<DrPath> silent_paths_;  // directed routes that lead to a silent node
    int64_t silent_mtime_ = -1;
    uint64_t dropped_ = 0;
};

}  // namespace fabscope
