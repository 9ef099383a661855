// archs: 52 61 70 80 90
// Matrix transpose (naive, coalesced through shared memory, bank-conflict free), copy.
#define TILE 32
#define ROWS 8
extern "C" __global__ void copy2d(float* o, const float* i, int w) {
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) o[(y + j) * w + x] = i[(y + j) * w + x];
}
extern "C" __global__ void transpose_naive(float* o, const float* i, int w, int h) {
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < w && y + j < h) o[x * h + y + j] = i[(y + j) * w + x];
}
extern "C" __global__ void transpose_coalesced(float* o, const float* i, int w, int h) {
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = i[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS)
        if (x < h && y + j < w) o[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}
extern "C" __global__ void transpose_noconflict(double* o, const double* i, int w) {
    __shared__ double tile[TILE][TILE + 1];
    int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) tile[threadIdx.y + j][threadIdx.x] = i[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * TILE + threadIdx.x; y = blockIdx.x * TILE + threadIdx.y;
    for (int j = 0; j < TILE; j += ROWS) o[(y + j) * w + x] = tile[threadIdx.x][threadIdx.y + j];
}
