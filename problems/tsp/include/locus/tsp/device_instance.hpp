#pragma once
/// \file
/// Device copies of a TSP instance's metric arrays (CUDA translation units only).

#include <cstdint>
#include <vector>

#include "locus/gpu/device_buffer.hpp"
#include "locus/tsp/instance.hpp"

namespace locus::tsp {

/// Uploads the coordinates or matrix an instance's metric reads; arrays() binds them.
class DeviceInstance {
public:
    explicit DeviceInstance(const Instance& instance) {
        arrays_.n = static_cast<std::int32_t>(instance.n);
        arrays_.xi = upload(xi_, instance.xi, "TSP integer x coordinates");
        arrays_.yi = upload(yi_, instance.yi, "TSP integer y coordinates");
        arrays_.x = upload(x_, instance.x, "TSP x coordinates");
        arrays_.y = upload(y_, instance.y, "TSP y coordinates");
        arrays_.matrix = upload(matrix_, instance.matrix, "TSP distance matrix");
    }

    /// Device pointers of the uploaded arrays (null where the instance has none).
    const MetricArrays& arrays() const { return arrays_; }

    /// Uploads `data` into `buffer` (nothing when empty) and returns the device pointer.
    template <class T>
    static const T* upload(gpu::DeviceBuffer<T>& buffer, const std::vector<T>& data,
                           const char* what) {
        if (data.empty()) return nullptr;
        buffer.allocate(data.size(), what);
        buffer.upload(data.data(), data.size());
        return buffer.data();
    }

private:
    MetricArrays arrays_;
    gpu::DeviceBuffer<std::int32_t> xi_, yi_, matrix_;
    gpu::DeviceBuffer<double> x_, y_;
};

} // namespace locus::tsp
