-- wrk script: POST one KServe binary-extension body (read from the file named by BODY_FILE) with its
-- Inference-Header-Content-Length; answers other than 200 are counted in wrk's "Non-2xx" line.
local f = assert(io.open(os.getenv("BODY_FILE"), "rb"))
wrk.method = "POST"
wrk.body = f:read("*a")
f:close()
wrk.headers["Content-Type"] = "application/octet-stream"
wrk.headers["Inference-Header-Content-Length"] = os.getenv("HEADER_LENGTH")
