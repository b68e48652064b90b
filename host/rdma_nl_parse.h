#pragma once
// The kernel's RDMA netlink device interface (NETLINK_RDMA, client
// RDMA_NL_NLDEV, include/uapi/rdma/rdma_netlink.h): the requests
// `rdma dev` and `rdma link` send, and the parsing of their dump replies.
// Pure: replies are byte strings, so captured ones are test fixtures.
// Every length is checked against the bytes that are there; a message or
// attribute that runs past its container ends the walk and is reported.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace fabscope::host {

/// One device of an RDMA_NLDEV_CMD_GET dump.
struct NlDevice {
    uint32_t index = 0;
    std::string name;
    std::optional<uint64_t> node_guid;  ///< host order, as `rdma dev` prints it
    std::optional<uint64_t> sys_image_guid;
    std::string fw_ver;
    std::optional<uint8_t> node_type;  ///< 1 = CA
    std::optional<uint32_t> ports;     ///< the number of ports
    std::string protocol;              ///< "ib", "roce", "iw", "opa" ("" on older kernels)
};

/// One port of an RDMA_NLDEV_CMD_PORT_GET dump.
struct NlPort {
    uint32_t dev_index = 0;
    std::string dev_name;
    uint32_t port = 0;
    std::optional<uint8_t> state;       ///< 4 = ACTIVE
    std::optional<uint8_t> phys_state;  ///< 5 = LinkUp
    std::optional<uint32_t> lid;
    std::optional<uint32_t> sm_lid;
    std::optional<uint8_t> lmc;
    std::optional<uint64_t> subnet_prefix;
    std::optional<uint32_t> netdev_index;
    std::string netdev;  ///< "" when the port has none (InfiniBand without IPoIB)
};

/// What a dump's reply messages held.
struct NlDump {
    std::vector<NlDevice> devices;
    std::vector<NlPort> ports;
    bool done = false;                  ///< NLMSG_DONE seen
    int error = 0;                      ///< positive errno of an NLMSG_ERROR, 0 if none
    std::vector<std::string> problems;  ///< malformed messages or attributes, for people
};

/// The netlink message type of an NLDEV command.
uint16_t nldev_type(uint16_t command);

/// A dump request (NLM_F_REQUEST | NLM_F_DUMP) for `command`, with
/// RDMA_NLDEV_ATTR_DEV_INDEX when given (PORT_GET dumps one device's ports).
std::vector<uint8_t> nldev_dump_request(uint16_t command, uint32_t seq,
                                        std::optional<uint32_t> dev_index = std::nullopt);

/// Parses one buffer of reply messages (as one recv() returns them) into
/// `dump`; messages of other sequence numbers are skipped.
void parse_nldev_reply(std::span<const uint8_t> bytes, uint32_t seq, NlDump& dump);

/// "ACTIVE" for 4, as `rdma link` prints port states; "" for unknown codes.
std::string nl_port_state_name(uint8_t state);
/// "LINK_UP" for 5, as `rdma link` prints physical states.
std::string nl_phys_state_name(uint8_t phys_state);

}  // namespace fabscope::host
