#ifndef SHAPES_H
#define SHAPES_H

#define PI 3.14159265358979

typedef struct circle {
    double radius;
} circle_t;

enum unit { METERS, FEET };

double circle_area(const circle_t *c);
double total_area(const circle_t *circles, int n);

#endif
