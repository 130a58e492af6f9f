#pragma once

#include <functional>
#include <memory>
#include <vector>

namespace chat2sbx {

// Raised when the client cancels a call (notifications/cancelled) or its session ends.
class CancellationToken {
public:
    CancellationToken() : m_state(std::make_shared<State>()) {}
    bool isCancelled() const { return m_state->cancelled; }
    // Runs `fn` once when cancelled (immediately if already cancelled).
    void onCancel(std::function<void()> fn) const
    {
        if (m_state->cancelled)
            fn();
        else
            m_state->handlers.push_back(std::move(fn));
    }
    void cancel() const
    {
        if (m_state->cancelled)
            return;
        m_state->cancelled = true;
        auto handlers = std::move(m_state->handlers);
        for (auto &h : handlers)
            h();
    }

private:
    struct State {
        bool cancelled = false;
        std::vector<std::function<void()>> handlers;
    };
    std::shared_ptr<State> m_state;
};

} // namespace chat2sbx
