// keepWorkingMemory: an answer-sized buffer comes from the heap, and freeing it keeps its pages, so
// the next request does not fault them in again (sandbox_list of 1,000: 7 of 10 ms were those faults).
#include "core/WorkingMemory.h"

#include <QtTest>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <cstdlib>
#include <cstring>

using namespace chat2sbx;

namespace {

// What AddressSanitizer's allocator does is its own: mallopt and mallinfo2 say nothing there.
bool underAsan()
{
#if defined(__SANITIZE_ADDRESS__)
    return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return true;
#else
    return false;
#endif
#else
    return false;
#endif
}

} // namespace

class TestWorkingMemory : public QObject {
    Q_OBJECT
private slots:
    void anAnswerSizedBufferStaysWithTheProcess()
    {
#if !defined(__GLIBC__)
        QSKIP("glibc's malloc only");
#else
        if (underAsan())
            QSKIP("AddressSanitizer's allocator ignores mallopt");
        keepWorkingMemory();
        constexpr size_t kAnswer = 1536 * 1024;   // a 1,000-sandbox list and its copies on the way out
        const struct mallinfo2 before = mallinfo2();
        void *buffers[3];
        for (void *&b : buffers) {
            b = std::malloc(kAnswer);
            QVERIFY(b);
            std::memset(b, 'x', kAnswer);   // touched, as an answer being written is
        }
        const struct mallinfo2 inUse = mallinfo2();
        QCOMPARE(inUse.hblks, before.hblks);   // from the heap, not one mapping each
        for (void *b : buffers)
            std::free(b);
        const struct mallinfo2 after = mallinfo2();
        // Freed, the heap is not trimmed back: its pages stay for the next answer.
        QVERIFY2(after.arena >= before.arena + 3 * kAnswer,
                 qPrintable(QStringLiteral("heap %1 -> %2 bytes").arg(before.arena).arg(after.arena)));
        QVERIFY(after.fordblks >= 3 * kAnswer);
        // An allocation far past any answer is still a mapping of its own, given back when freed.
        void *huge = std::malloc(64 * 1024 * 1024);
        QVERIFY(huge);
        QCOMPARE(mallinfo2().hblks, before.hblks + 1);
        std::free(huge);
        QCOMPARE(mallinfo2().hblks, before.hblks);
#endif
    }
};

QTEST_GUILESS_MAIN(TestWorkingMemory)
#include "tst_working_memory.moc"
