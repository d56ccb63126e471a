// Axis-aligned boxes and their overlap: what every detection model and its
// evaluation share (SSD now, Mask R-CNN next).
//
// A Box holds its corners in the caller's units (pixels, or [0, 1]
// normalised coordinates as SSD's anchors use). A box with x1 <= x0 or
// y1 <= y0 is empty: its area is 0 and it overlaps nothing.
#pragma once

namespace podbench::detection {

struct Box {
  double x0 = 0, y0 = 0, x1 = 0, y1 = 0;

  static Box FromXywh(double x, double y, double w, double h) { return {x, y, x + w, y + h}; }
  static Box FromCenter(double cx, double cy, double w, double h) {
    return {cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2};
  }
  double width() const { return x1 - x0; }
  double height() const { return y1 - y0; }
  double cx() const { return (x0 + x1) / 2; }
  double cy() const { return (y0 + y1) / 2; }
  double Area() const;  // 0 when empty
  bool Empty() const { return !(x1 > x0 && y1 > y0); }
};

// Area of a ∩ b (0 when they do not overlap).
double IntersectionArea(const Box& a, const Box& b);
// Intersection over union; 0 when the union is empty.
double Iou(const Box& a, const Box& b);
// The part of `b` inside `frame` (empty when outside).
Box Clip(const Box& b, const Box& frame);

}  // namespace podbench::detection
