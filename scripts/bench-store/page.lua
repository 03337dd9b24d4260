-- wrk: GET a page with a session cookie, or with the session as a bearer token.
-- wrk -s page.lua URL -- TOKEN [cookie|bearer]
function init(args)
    if args[2] == "bearer" then
        wrk.headers["Authorization"] = "Bearer " .. args[1]
    else
        wrk.headers["Cookie"] = "handoff_session=" .. args[1]
    end
end

function done(summary, latency, requests)
    io.write(string.format("RESULT requests=%d errors=%d seconds=%.3f p50_ms=%.2f p99_ms=%.2f\n",
        summary.requests, summary.errors.status, summary.duration / 1e6,
        latency:percentile(50) / 1000, latency:percentile(99) / 1000))
end
