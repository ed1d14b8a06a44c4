// The frame channel (fd 3) and the claim words (fd 4) of a stub, as apps/server/src/backends/stub/protocol.ts
// and claim-region.ts define them; the Python stub's side is inferscope_stub/wire.py and claims.py.
//
//   u32 header length H | u32 body length B | H bytes of JSON, space-padded so 8 + H is a multiple of 8
//   | B bytes of body, each tensor at an 8-aligned offset
#pragma once
#include <poll.h>
#include <sys/uio.h>
#include <unistd.h>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "json.hpp"

namespace stub {

constexpr int CHANNEL_FD = 3;
constexpr int CLAIM_FD = 4;
constexpr int CLAIM_SLOTS = 64;
constexpr size_t ALIGN = 8;

struct Frame {
  json::Value message;
  // 16-byte aligned storage (operator new), so tensors at 8-aligned offsets can be viewed in place
  std::vector<char> body;
};

/** One piece of an outgoing body: bytes that stay alive until write() returns. */
struct Chunk {
  const void* data;
  size_t bytes;
};

class Channel {
 public:
  explicit Channel(int fd) : fd_(fd) {}

  /** The next frame; false when the server closed its end. Throws on a header that is not JSON. */
  bool read(Frame& frame) {
    uint32_t prefix[2];
    if (!readExact(prefix, sizeof prefix)) return false;
    header_.resize(prefix[0]);
    frame.body.resize(prefix[1]);
    if (!readExact(header_.data(), header_.size()) || !readExact(frame.body.data(), frame.body.size())) return false;
    frame.message = json::parse(header_.data(), header_.data() + header_.size());
    return true;
  }

  /** Writes one frame: `header` is the message's JSON, `chunks` the body (bodyBytes in all). */
  bool write(std::string header, const std::vector<Chunk>& chunks = {}, size_t bodyBytes = 0) {
    while ((8 + header.size()) % ALIGN) header.push_back(' ');
    uint32_t prefix[2] = {static_cast<uint32_t>(header.size()), static_cast<uint32_t>(bodyBytes)};
    std::vector<iovec> parts;
    parts.push_back({prefix, sizeof prefix});
    parts.push_back({header.data(), header.size()});
    for (const Chunk& c : chunks)
      if (c.bytes) parts.push_back({const_cast<void*>(c.data), c.bytes});
    size_t next = 0;
    while (next < parts.size()) {
      const int count = static_cast<int>(std::min<size_t>(parts.size() - next, IOV_MAX));
      ssize_t n = ::writev(fd_, parts.data() + next, count);
      if (n < 0) {
        if (errno == EINTR) continue;
        if (errno == EAGAIN && wait(POLLOUT)) continue;
        return false;  // the server is gone: nothing more can reach it
      }
      while (next < parts.size() && static_cast<size_t>(n) >= parts[next].iov_len) n -= parts[next++].iov_len;
      if (next < parts.size() && n > 0) {
        parts[next].iov_base = static_cast<char*>(parts[next].iov_base) + n;
        parts[next].iov_len -= n;
      }
    }
    return true;
  }

 private:
  int fd_;
  std::vector<char> header_;

  bool wait(short events) {
    pollfd p{fd_, events, 0};
    return ::poll(&p, 1, -1) >= 0 || errno == EINTR;
  }

  bool readExact(void* into, size_t n) {
    char* c = static_cast<char*>(into);
    while (n > 0) {
      ssize_t k = ::read(fd_, c, n);
      if (k < 0 && errno == EINTR) continue;
      if (k < 0 && errno == EAGAIN && wait(POLLIN)) continue;
      if (k <= 0) return false;
      c += k;
      n -= static_cast<size_t>(k);
    }
    return true;
  }
};

/** The claim words: 1 + floor(id / 64) % 255 per slot; bytes [0, 64) the server's, [64, 128) the stub's. */
class Claims {
 public:
  Claims() : usable_(::lseek(CLAIM_FD, 0, SEEK_CUR) >= 0 || errno != EBADF) {}

  /** Marks batch `id` begun; true when the server had not taken it back (it runs here without asking). */
  bool beginWithoutAsking(int64_t id) const {
    if (!usable_) return true;  // started without a region (a tool): every batch runs
    const int slot = static_cast<int>(id % CLAIM_SLOTS);
    const unsigned char gen = static_cast<unsigned char>(1 + (id / CLAIM_SLOTS) % 255);
    unsigned char seen = 0;
    if (::pwrite(CLAIM_FD, &gen, 1, CLAIM_SLOTS + slot) != 1) return true;
    if (::pread(CLAIM_FD, &seen, 1, slot) != 1) return true;
    return seen != gen;
  }

 private:
  bool usable_;
};

}  // namespace stub
