// InferScope's native pytorch stub: one process per model instance, as the Python stub
// (apps/server/python/stub_main.py with inferscope_stub/torch_runner.py), on the same frames and claim
// words, running the TorchScript model with libtorch's C++ API. The server uses it for pytorch_libtorch
// models when it is built (apps/server/src/backends/pytorch/native-stub.ts builds it with the libtorch
// headers Debian's python3-torch brings); otherwise the Python stub runs them.
//
// Why it exists: the Python stub spends ~150 us of its own per batch around forward() on a 2-core VM
// (interpreter, numpy views, threads handing work over); this loop is one thread that reads a frame,
// runs forward() on tensors viewing the frame in place and writes the outputs from torch's own memory.
// Measured: bench/backends/README.md.
//
// The contract it keeps (the Python stub's, stated in stub_main.py): messages one at a time, in order;
// each `run` answered by one `result` or `runError` unless the server took it back before it began
// (claim words, then a `claim` call); `close` or end of stream exits; stdout/stderr are the model's.
#include <torch/script.h>
#include <torch/cuda.h>
#include <torch/version.h>
#include <ATen/Parallel.h>
#include <torch/csrc/jit/runtime/graph_executor.h>
#include <sys/prctl.h>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <deque>
#include <iostream>
#include <optional>

#include "channel.hpp"
#include "naming.hpp"

namespace {

using Clock = std::chrono::steady_clock;
using json::quote;

long long micros(Clock::duration d) { return std::chrono::duration_cast<std::chrono::microseconds>(d).count(); }

/** A failure worth stating as it is (the Python stub's StubInitError / StubRunError). */
struct StubError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

std::string describe(const std::exception& e) {
  if (auto* c = dynamic_cast<const c10::Error*>(&e)) return c->what_without_backtrace();
  return e.what();
}

struct Datatype {
  const char* name;
  at::ScalarType type;
};
// KServe datatypes torch has a dtype for (torch 1.13 has no unsigned type beyond uint8)
const Datatype DATATYPES[] = {
    {"BOOL", at::kBool}, {"UINT8", at::kByte}, {"INT8", at::kChar}, {"INT16", at::kShort}, {"INT32", at::kInt},
    {"INT64", at::kLong}, {"FP16", at::kHalf}, {"FP32", at::kFloat}, {"FP64", at::kDouble},
};

at::ScalarType torchType(const std::string& datatype, const std::string& tensor) {
  for (const Datatype& d : DATATYPES)
    if (datatype == d.name) return d.type;
  throw StubError("datatype " + datatype + " of tensor '" + tensor + "' has no torch dtype");
}

const char* kserveType(at::ScalarType type, const std::string& tensor) {
  for (const Datatype& d : DATATYPES)
    if (type == d.type) return d.name;
  throw StubError("output '" + tensor + "' has torch dtype " + std::string(c10::toString(type)) + ", which has no KServe datatype");
}

std::string shapeJson(at::IntArrayRef shape) {
  std::string out = "[";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? "," : "") + std::to_string(shape[i]);
  return out + "]";
}

void dieWithParent() {
  // SIGKILL when the server dies, even if it is killed itself (the server also kills the process group)
  const pid_t parent = getppid();
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (getppid() != parent) _exit(1);
}

class Runner {
 public:
  explicit Runner(const json::Value& init) {
    const json::Value empty;
    const json::Value& s = init.get("settings") ? *init.get("settings") : empty;
    const int intra = static_cast<int>(s.num("intraOpThreads", 1));
    const int inter = static_cast<int>(s.num("interOpThreads", 1));
    // threads first: the inter-op count can only be set before torch starts parallel work
    at::set_num_threads(intra);
    try {
      at::set_num_interop_threads(inter);
    } catch (const std::exception&) {
    }
    if (s.flag("disableOptimizedExecution")) {
      // Triton's DISABLE_OPTIMIZED_EXECUTION: no profiling executor, no graph-executor optimisation
      torch::jit::getProfilingMode() = false;
      torch::jit::setGraphExecutorOptimize(false);
    }
    inferenceMode_ = s.flag("inferenceMode", true);
    const std::string device = init.str("device", "cpu");
    if (device.rfind("gpu", 0) == 0) {
      const long index = device.size() > 3 ? std::strtol(device.c_str() + 3, nullptr, 10) : 0;
      if (torch::cuda::is_available() && index < static_cast<long>(torch::cuda::device_count())) {
        device_ = torch::Device(torch::kCUDA, static_cast<c10::DeviceIndex>(index));
      } else {
        note_ = std::string("CUDA unavailable to torch (") +
                (at::hasCUDA() ? "torch sees no GPU " + std::to_string(index) : std::string("torch was built without CUDA")) +
                "); running on CPU";
      }
    }
    const std::string path = init.str("modelFile");
    try {
      module_ = torch::jit::load(path, device_);
    } catch (const std::exception& e) {
      std::string why = describe(e);
      why = why.substr(0, why.find('\n'));
      throw StubError("unable to load TorchScript model '" + path + "': " + why);
    }
    module_.eval();
    const json::Value& config = init.get("config") ? *init.get("config") : empty;
    for (const json::Value& io : config.list("input")) inputNames_.push_back(io.str("name"));
    for (const json::Value& io : config.list("output")) outputNames_.push_back(io.str("name"));
    std::vector<std::string> args;
    if (auto forward = module_.find_method("forward")) {
      const auto& arguments = forward->function().getSchema().arguments();
      for (size_t i = 1; i < arguments.size(); ++i) args.push_back(arguments[i].name());  // [0] is self
    }
    inputPos_ = naming::inputPositions(inputNames_, args);
    outputPos_ = naming::outputPositions(outputNames_);
    if (!args.empty() && args.size() < inputNames_.size()) {
      throw StubError("model '" + init.str("model") + "' forward() takes " + std::to_string(args.size()) + " inputs (" +
                      naming::join(args) + ") but the config lists " + std::to_string(inputNames_.size()) + " (" +
                      naming::join(inputNames_) + ")");
    }
    runtime_ = std::string("libtorch ") + TORCH_VERSION + " in InferScope's native stub, " + std::to_string(at::get_num_threads()) +
               " intra-op / " + std::to_string(at::get_num_interop_threads()) + " inter-op threads, " + device_.str();
  }

  std::string readyMessage() const {
    std::string m = "{\"type\":\"ready\",\"device\":" + quote(device_.is_cpu() ? "cpu" : "gpu" + std::to_string(device_.index())) +
                    ",\"runtime\":" + quote(runtime_);
    if (!note_.empty()) m += ",\"note\":" + quote(note_);
    return m + "}";
  }

  /** One merged request's named output tensors, on the CPU and contiguous. */
  std::vector<std::pair<std::string, at::Tensor>> run(const json::Value& request, std::vector<char>& body) {
    std::vector<std::optional<at::Tensor>> args(inputNames_.size());
    for (const json::Value& t : request.list("inputs")) {
      const std::string name = t.str("name");
      const auto pos = inputPos_.find(name);
      if (pos == inputPos_.end() || pos->second >= args.size()) throw StubError("input '" + name + "' has no place among forward()'s arguments");
      args[pos->second] = view(t, name, body);
    }
    std::vector<c10::IValue> feed;
    for (auto& a : args)
      if (a) feed.emplace_back(device_.is_cpu() ? *a : a->to(device_, /*non_blocking=*/true));
    c10::IValue out;
    if (inferenceMode_) {
      c10::InferenceMode guard;
      out = module_.forward(std::move(feed));
    } else {
      torch::NoGradGuard guard;
      out = module_.forward(std::move(feed));
    }
    std::vector<std::pair<std::string, c10::IValue>> got;
    if (out.isGenericDict()) {
      const auto dict = out.toGenericDict();
      for (const std::string& n : outputNames_)
        for (const auto& entry : dict)
          if (entry.key().isString() && entry.key().toStringRef() == n) got.emplace_back(n, entry.value());
    } else {
      std::vector<c10::IValue> seq;
      if (out.isTuple()) seq = out.toTupleRef().elements().vec();
      else if (out.isList()) seq = out.toListRef().vec();
      else seq.push_back(out);
      for (const std::string& n : outputNames_) {
        const size_t pos = outputPos_.at(n);
        if (pos >= seq.size()) {
          throw StubError("forward() returned " + std::to_string(seq.size()) + " outputs; output '" + n + "' wants position " + std::to_string(pos));
        }
        got.emplace_back(n, seq[pos]);
      }
    }
    std::vector<std::string> wanted;
    for (const json::Value& o : request.list("outputs")) wanted.push_back(o.text);
    std::vector<std::pair<std::string, at::Tensor>> answer;
    for (auto& [name, value] : got) {
      if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), name) == wanted.end()) continue;
      if (!value.isTensor()) throw StubError("output '" + name + "' is a " + value.tagKind() + ", not a tensor");
      answer.emplace_back(name, value.toTensor().detach().to(torch::kCPU).contiguous());
    }
    return answer;
  }

 private:
  torch::jit::Module module_;
  torch::Device device_ = torch::kCPU;
  bool inferenceMode_ = true;
  std::string note_, runtime_;
  std::vector<std::string> inputNames_, outputNames_;
  std::map<std::string, size_t> inputPos_, outputPos_;

  /** The tensor a WireTensor describes, viewing the frame body (no copy). */
  static at::Tensor view(const json::Value& t, const std::string& name, std::vector<char>& body) {
    const at::ScalarType type = torchType(t.str("datatype"), name);
    std::vector<int64_t> shape;
    int64_t count = 1;
    for (const json::Value& d : t.list("shape")) {
      if (d.kind != json::Value::Number || d.number < 0) throw StubError("tensor '" + name + "' has a bad shape");
      shape.push_back(static_cast<int64_t>(d.number));
      count *= shape.back();
    }
    const double offset = t.num("offset", -1), bytes = t.num("bytes", -1);
    const size_t element = c10::elementSize(type);
    if (offset < 0 || bytes < 0 || offset + bytes > static_cast<double>(body.size()) || static_cast<size_t>(offset) % element) {
      throw StubError("tensor '" + name + "' lies outside the frame body");
    }
    if (static_cast<double>(count) * element != bytes) {
      throw StubError("tensor '" + name + "' has " + std::to_string(static_cast<long long>(bytes)) + " bytes, its shape " +
                      shapeJson(shape) + " needs " + std::to_string(count * element));
    }
    return torch::from_blob(body.data() + static_cast<size_t>(offset), shape, torch::TensorOptions().dtype(type));
  }
};

const char PADDING[stub::ALIGN] = {};

/** Answers one `run`: a result with every output laid out in the body, or a runError. */
void answer(stub::Channel& channel, Runner& runner, stub::Frame& frame, int64_t id) {
  const auto started = Clock::now();
  std::string responses;
  std::vector<std::vector<std::pair<std::string, at::Tensor>>> outputs;
  Clock::duration ran{};
  try {
    for (const json::Value& request : frame.message.list("requests")) outputs.push_back(runner.run(request, frame.body));
    ran = Clock::now() - started;
  } catch (const std::exception& e) {
    channel.write("{\"type\":\"runError\",\"id\":" + std::to_string(id) + ",\"message\":" + quote(describe(e)) + "}");
    return;
  }
  std::vector<stub::Chunk> chunks;
  size_t end = 0;
  try {
    for (const auto& named : outputs) {
      std::string metas;
      for (const auto& [name, t] : named) {
        const size_t bytes = t.numel() * t.element_size();
        metas += std::string(metas.empty() ? "" : ",") + "{\"name\":" + quote(name) + ",\"datatype\":\"" + kserveType(t.scalar_type(), name) +
                 "\",\"shape\":" + shapeJson(t.sizes()) + ",\"offset\":" + std::to_string(end) + ",\"bytes\":" + std::to_string(bytes) + "}";
        chunks.push_back({t.data_ptr(), bytes});
        end += bytes;
        if (const size_t pad = (stub::ALIGN - end % stub::ALIGN) % stub::ALIGN) {
          chunks.push_back({PADDING, pad});
          end += pad;
        }
      }
      responses += std::string(responses.empty() ? "" : ",") + "{\"outputs\":[" + metas + "]}";
    }
  } catch (const std::exception& e) {
    channel.write("{\"type\":\"runError\",\"id\":" + std::to_string(id) + ",\"message\":" + quote(describe(e)) + "}");
    return;
  }
  const auto finished = Clock::now();
  // inputUs: viewing the frame's tensors costs nothing worth timing apart from forward(); outputUs: layout
  channel.write("{\"type\":\"result\",\"id\":" + std::to_string(id) + ",\"responses\":[" + responses + "],\"computeUs\":" +
                    std::to_string(micros(finished - started)) + ",\"inputUs\":0,\"outputUs\":" + std::to_string(micros(finished - started - ran)) + "}",
                chunks, end);
}

/** Frames that arrived while the stub waited for a claim reply; taken before reading the channel again. */
std::deque<stub::Frame> held;

bool next(stub::Channel& channel, stub::Frame& frame) {
  if (held.empty()) return channel.read(frame);
  frame = std::move(held.front());
  held.pop_front();
  return true;
}

/**
 * The server marked batch `id` taken back before the stub marked it begun, or after: it says which
 * (claim-region.ts). True: run it here.
 */
bool askClaim(stub::Channel& channel, int64_t id) {
  static int64_t calls = 0;
  const int64_t call = ++calls;
  if (!channel.write("{\"type\":\"claim\",\"call\":" + std::to_string(call) + ",\"id\":" + std::to_string(id) + "}")) return false;
  for (;;) {
    stub::Frame frame;
    if (!channel.read(frame)) return false;  // the server is gone: no one waits for this batch
    const json::Value& m = frame.message;
    if (m.str("type") == "callReply" && m.num("call") == call) return m.num("value") != 0;
    held.push_back(std::move(frame));
  }
}

}  // namespace

int main() {
  dieWithParent();
  std::setvbuf(stdout, nullptr, _IOLBF, 0);  // the model's prints reach the server log line by line
  std::cout.setf(std::ios::unitbuf);
  stub::Channel channel(stub::CHANNEL_FD);
  stub::Claims claims;
  stub::Frame frame;
  std::optional<Runner> runner;
  try {
    if (!channel.read(frame)) return 0;
    runner.emplace(frame.message);
  } catch (const std::exception& e) {
    channel.write("{\"type\":\"initError\",\"message\":" + quote(describe(e)) + "}");
    return 1;
  }
  channel.write(runner->readyMessage());
  try {
    while (next(channel, frame)) {
      const std::string type = frame.message.str("type");
      if (type == "close") break;
      if (type != "run") continue;  // cancel, late replies: nothing a TorchScript model acts on
      const int64_t id = static_cast<int64_t>(frame.message.num("id"));
      if (!claims.beginWithoutAsking(id) && !askClaim(channel, id)) continue;  // taken back: never begins here
      answer(channel, *runner, frame, id);  // the model's own failures become its runError
    }
  } catch (const std::exception& e) {
    // a frame the server did not write (or no memory for one): the server sees the exit, restarts the stub
    std::cerr << "inferscope native stub: " << describe(e) << std::endl;
    return 1;
  }
  return 0;
}
