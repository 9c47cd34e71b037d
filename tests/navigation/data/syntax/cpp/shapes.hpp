#pragma once

namespace geometry {

class Shape {
public:
    virtual ~Shape() = default;
    virtual double area() const = 0;
};

class Circle : public Shape {
public:
    explicit Circle(double radius) : radius_(radius) {}
    double area() const override;
    double radius() const { return radius_; }

private:
    double radius_;
};

double total_area(const Shape *const *shapes, int n);

}  // namespace geometry
