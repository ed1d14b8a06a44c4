// Lab: the ceiling of a native pytorch stub. The same frames as the Python stub (inferscope_stub/wire.py)
// on fd 3, read and answered in one thread with libtorch's C++ API, so stub_feed.py can feed it in place of
// stub_main.py and compare its CPU per batch with torch called from Python. Not a stub: it does not read
// the JSON headers (the input is FP32 [batch, 784] at body offset 0, the answer's header is fixed), has no
// claims, errors or other messages. Build (libtorch-dev comes with Debian's python3-torch):
//
//   g++ -O2 -std=c++17 bench/backends/native_loop.cpp -o /tmp/native_loop \
//       -I/usr/include/torch/csrc/api/include -ltorch -ltorch_cpu -lc10
//   NATIVE_STUB=/tmp/native_loop /usr/bin/python3 bench/backends/stub_feed.py 8 3 1.5
#include <torch/script.h>
#include <ATen/Parallel.h>
#include <sys/uio.h>
#include <unistd.h>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

static bool readExact(int fd, void* p, size_t n) {
  auto* c = static_cast<char*>(p);
  while (n > 0) {
    ssize_t k = read(fd, c, n);
    if (k <= 0) return false;
    c += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

static void writeFrame(int fd, const std::string& json, const void* body, uint32_t bodyLen) {
  std::string header = json;
  while ((8 + header.size()) % 8) header.push_back(' ');
  uint32_t prefix[2] = {static_cast<uint32_t>(header.size()), bodyLen};
  iovec v[3] = {{prefix, 8}, {header.data(), header.size()}, {const_cast<void*>(body), bodyLen}};
  writev(fd, v, bodyLen ? 3 : 2);
}

int main(int argc, char** argv) {
  const int fd = 3;
  at::set_num_threads(1);
  std::vector<char> header, body;
  uint32_t prefix[2];
  if (!readExact(fd, prefix, 8)) return 0;
  header.resize(prefix[0]);
  body.resize(prefix[1]);
  readExact(fd, header.data(), prefix[0]);
  readExact(fd, body.data(), prefix[1]);
  auto model = torch::jit::load(argv[1]);
  model.eval();
  c10::InferenceMode guard;
  writeFrame(fd, "{\"type\":\"ready\",\"runtime\":\"native lab loop, libtorch C++\"}", nullptr, 0);
  while (readExact(fd, prefix, 8)) {
    header.resize(prefix[0]);
    body.resize(prefix[1]);
    if (!readExact(fd, header.data(), prefix[0]) || !readExact(fd, body.data(), prefix[1])) break;
    if (std::strstr(std::string(header.begin(), header.end()).c_str(), "\"close\"")) break;
    const int64_t batch = prefix[1] / (784 * 4);
    auto x = torch::from_blob(body.data(), {batch, 784}, torch::kFloat32);
    auto y = model.forward({x}).toTensor().contiguous();
    const auto bytes = static_cast<uint32_t>(y.numel() * 4);
    writeFrame(fd, "{\"type\":\"result\",\"responses\":[]}", y.data_ptr(), bytes);
  }
  return 0;
}
