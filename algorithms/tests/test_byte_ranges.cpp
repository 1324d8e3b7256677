// ByteRanges (step_semantics.hpp): the set of bytes a rank has sent and not written since, as
// the cost model and SimCommunicator keep it.
#include <catch2/catch.hpp>

#include "algorithms/step_semantics.hpp"

using ddl::ByteRanges;

TEST_CASE("byte ranges merge what touches and count exact overlaps", "[step_semantics]") {
  ByteRanges r;
  r.add(100, 200);
  r.add(300, 400);
  CHECK(r.ranges() == 2);
  CHECK(r.overlap(0, 1000) == 200);
  CHECK(r.overlap(150, 350) == 100);  // 150..200 and 300..350
  CHECK(r.overlap(200, 300) == 0);    // half-open: the gap between them
  r.add(200, 300);                    // touches both: one range 100..400
  CHECK(r.ranges() == 1);
  CHECK(r.overlap(0, 1000) == 300);
  r.add(50, 120);  // overlaps the start
  CHECK(r.ranges() == 1);
  CHECK(r.overlap(0, 1000) == 350);
  r.add(10, 20);
  r.add(1000, 1000);  // empty: nothing
  CHECK(r.ranges() == 2);
  CHECK(r.overlap(0, 5000) == 360);
}

TEST_CASE("removing bytes splits, trims and drops ranges", "[step_semantics]") {
  ByteRanges r;
  r.add(0, 1000);
  r.remove(400, 600);  // a hole in the middle
  CHECK(r.ranges() == 2);
  CHECK(r.overlap(0, 1000) == 800);
  CHECK(r.overlap(400, 600) == 0);
  r.remove(300, 700);  // trims both neighbours of the hole
  CHECK(r.overlap(0, 1000) == 600);
  CHECK(r.overlap(0, 300) == 300);
  CHECK(r.overlap(700, 1000) == 300);
  r.remove(0, 1000);  // everything
  CHECK(r.ranges() == 0);
  CHECK(r.overlap(0, 1000) == 0);
  r.add(10, 20);
  r.add(30, 40);
  r.add(50, 60);
  r.remove(15, 55);  // spans three ranges: keeps 10..15 and 55..60
  CHECK(r.ranges() == 2);
  CHECK(r.overlap(0, 100) == 10);
  CHECK(r.overlap(10, 15) == 5);
  CHECK(r.overlap(55, 60) == 5);
  r.remove(5, 5);  // empty: nothing
  CHECK(r.overlap(0, 100) == 10);
}
