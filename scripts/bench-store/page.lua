-- wrk: GET a page with a session cookie. wrk -s page.lua URL -- TOKEN
function init(args)
    wrk.headers["Cookie"] = "handoff_session=" .. args[1]
end

function done(summary, latency, requests)
    io.write(string.format("RESULT requests=%d errors=%d seconds=%.3f p50_ms=%.2f p99_ms=%.2f\n",
        summary.requests, summary.errors.status, summary.duration / 1e6,
        latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
