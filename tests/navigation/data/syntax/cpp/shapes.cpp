#include "shapes.hpp"

namespace geometry {

double Circle::area() const {
    return 3.14159265358979 * radius_ * radius_;
}

double total_area(const Shape *const *shapes, int n) {
    double total = 0;
    for (int i = 0; i < n; i++) total += shapes[i]->area();
    return total;
}

}  // namespace geometry
